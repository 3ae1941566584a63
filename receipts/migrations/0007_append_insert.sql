-- The batch's insert alone, as a function: the first transaction of metis_log_append_fenced (0006)
-- without the second. The caller runs it in autocommit; it takes the log's lock, checks the expected
-- tail and the fences, inserts records and nodes, and its transaction commits without waiting for
-- the WAL flush (the lock goes with the commit). The durable head is raised afterwards by another
-- connection of the same writer, for every batch inserted meanwhile at once (one flush for all):
-- the writer builds and inserts the next batch while the previous ones are flushed. A moved tail
-- inserts nothing and answers with the records in between (``gap``, their bodies in seq order, at
-- most 4096; NULL when more), so the caller chains on them without a second query; they may not be
-- durable yet, the caller only hashes them. Stale fences insert nothing and are named (``refused``:
-- positions in the fence arrays). metis_log_append_fenced stays for replicas of the previous release
-- during a rolling upgrade.
CREATE OR REPLACE FUNCTION metis_log_insert(p_lock bigint, p_prev_seq bigint, p_prev_hash text, p_seq bigint[],
                                            p_type text[], p_name text[], p_tenant text[], p_topic text[],
                                            p_action_id text[], p_ref text[], p_stream text[], p_body bytea[],
                                            p_hash text[], p_level integer[], p_idx bigint[], p_node bytea[],
                                            p_fence_action text[], p_fence_epoch bigint[],
                                            OUT ok boolean, OUT tail_seq bigint, OUT tail_hash text,
                                            OUT refused integer[], OUT gap bytea[])
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock);
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT r.seq, r.hash INTO tail_seq, tail_hash FROM records r ORDER BY r.seq DESC LIMIT 1;
  tail_seq := coalesce(tail_seq, 0);
  tail_hash := coalesce(tail_hash, repeat('0', 64));
  refused := '{}';
  ok := false;
  IF tail_seq <> p_prev_seq OR tail_hash <> p_prev_hash THEN
    IF tail_seq > p_prev_seq AND tail_seq - p_prev_seq <= 4096 THEN
      SELECT array_agg(r.body ORDER BY r.seq) INTO gap FROM records r
       WHERE r.seq > p_prev_seq AND r.seq <= tail_seq;
    END IF;
    RETURN;
  END IF;
  IF cardinality(p_fence_action) > 0 THEN
    PERFORM 1 FROM metis_jobs j WHERE j.action_id = ANY(p_fence_action) ORDER BY j.action_id FOR SHARE;
    SELECT coalesce(array_agg(f.ord::integer ORDER BY f.ord), '{}') INTO refused
      FROM unnest(p_fence_action, p_fence_epoch) WITH ORDINALITY AS f(action_id, epoch, ord)
      LEFT JOIN metis_jobs j ON j.action_id = f.action_id
     WHERE j.action_id IS NULL OR j.epoch <> f.epoch OR j.state <> 'running';
    IF cardinality(refused) > 0 THEN
      RETURN;
    END IF;
  END IF;
  IF cardinality(p_seq) > 0 THEN
    INSERT INTO records (seq, type, name, tenant, topic, action_id, ref, stream, body, hash)
      SELECT * FROM unnest(p_seq, p_type, p_name, p_tenant, p_topic, p_action_id, p_ref, p_stream, p_body, p_hash);
  END IF;
  IF cardinality(p_level) > 0 THEN
    INSERT INTO merkle_nodes (level, idx, hash) SELECT * FROM unnest(p_level, p_idx, p_node);
  END IF;
  ok := true;
  tail_seq := p_seq[array_length(p_seq, 1)];
  tail_hash := p_hash[array_length(p_hash, 1)];
END
$$;
