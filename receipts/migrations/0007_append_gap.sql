-- metis_log_append_fenced (0006) answering a moved tail with the
-- records in between. Several processes appending at once (replicas, workers) find the tail moved on
-- most calls; the caller used to read those records with a second query before building its batch
-- again. Now ``gap`` holds their bodies (in seq order, at most 4096; NULL when more): the caller hashes
-- them onto its copy of the tree's right edge and calls again at once. They may not be durable yet:
-- the caller only hashes them, it never shows them.
CREATE OR REPLACE PROCEDURE metis_log_append_gap(p_lock bigint, p_prev_seq bigint, p_prev_hash text,
                                                 p_seq bigint[], p_type text[], p_name text[], p_tenant text[],
                                                 p_topic text[], p_action_id text[], p_ref text[],
                                                 p_stream text[], p_body bytea[], p_hash text[],
                                                 p_level integer[], p_idx bigint[], p_node bytea[],
                                                 p_fence_action text[], p_fence_epoch bigint[],
                                                 p_writer text, p_note text, INOUT ok boolean DEFAULT NULL,
                                                 INOUT tail_seq bigint DEFAULT NULL,
                                                 INOUT tail_hash text DEFAULT NULL,
                                                 INOUT refused integer[] DEFAULT NULL,
                                                 INOUT gap bytea[] DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint := p_seq[array_length(p_seq, 1)];
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock);
  SELECT r.seq, r.hash INTO tail_seq, tail_hash FROM records r ORDER BY r.seq DESC LIMIT 1;
  tail_seq := coalesce(tail_seq, 0);
  tail_hash := coalesce(tail_hash, repeat('0', 64));
  refused := '{}';
  IF tail_seq <> p_prev_seq OR tail_hash <> p_prev_hash THEN
    ok := false;
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
      ok := false;
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
  PERFORM set_config('synchronous_commit', 'off', true);
  COMMIT;
  INSERT INTO metis_log_head (writer, seq) VALUES (p_writer, last_seq)
    ON CONFLICT (writer) DO UPDATE SET seq = excluded.seq WHERE metis_log_head.seq < excluded.seq;
  PERFORM pg_notify('metis_log', p_note);
  ok := true;
  tail_seq := last_seq;
  tail_hash := p_hash[array_length(p_hash, 1)];
END
$$;
