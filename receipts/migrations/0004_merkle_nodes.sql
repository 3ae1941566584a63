-- The Merkle tree's complete subtrees of 2^4 leaves and more (RFC 9162 node hashes, as the embedded
-- log stores them), written in the transaction of the records that complete them: a replica opens
-- by reading O(log n) nodes instead of hashing every record. A database whose records predate this
-- table gets its nodes once, at the first open (under the log's lock, so several replicas starting
-- at once compute them once). Append-only, like the records.
CREATE TABLE IF NOT EXISTS merkle_nodes (
  level smallint NOT NULL CHECK (level >= 0),
  idx bigint NOT NULL CHECK (idx >= 0),
  hash bytea NOT NULL CHECK (length(hash) = 32),
  PRIMARY KEY (level, idx)
);
CREATE OR REPLACE TRIGGER merkle_nodes_no_update BEFORE UPDATE OR DELETE ON merkle_nodes
  FOR EACH ROW EXECUTE FUNCTION metis_refuse_change();
CREATE OR REPLACE TRIGGER merkle_nodes_no_truncate BEFORE TRUNCATE ON merkle_nodes
  FOR EACH STATEMENT EXECUTE FUNCTION metis_refuse_change();

-- The durable head: every record with seq <= this one is on disk. Readers and followers read only
-- up to it, so nothing reaches a client before it is durable.
-- One row per writer connection (``writer``), so concurrent writers do not wait for each other's
-- flush to raise their own row; the head is the largest seq of any row.
CREATE TABLE IF NOT EXISTS metis_log_head (
  writer text PRIMARY KEY,
  seq bigint NOT NULL CHECK (seq >= 0)
);
INSERT INTO metis_log_head (writer, seq) SELECT 'migration', coalesce(max(seq), 0) FROM records ON CONFLICT DO NOTHING;

-- One round trip per group commit, with the batch's Merkle nodes, in two transactions: (1) take the
-- log's lock, check the expected tail, insert records and nodes, COMMIT without waiting for the WAL
-- flush (the lock is released at once, so the next batch, of any replica, is not held up by this
-- one's fsync); (2) raise the durable head over the batch and NOTIFY, committed synchronously: its
-- flush covers the batch. A moved tail inserts nothing and returns the actual tail. A caller that
-- loses the connection in between finds the batch by seq and hash and raises the head itself.
CREATE OR REPLACE PROCEDURE metis_log_append(p_lock bigint, p_prev_seq bigint, p_prev_hash text, p_seq bigint[],
                                             p_type text[], p_name text[], p_tenant text[], p_topic text[],
                                             p_action_id text[], p_ref text[], p_stream text[], p_body bytea[],
                                             p_hash text[], p_level integer[], p_idx bigint[], p_node bytea[],
                                             p_writer text, p_note text, INOUT ok boolean DEFAULT NULL,
                                             INOUT tail_seq bigint DEFAULT NULL, INOUT tail_hash text DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint := p_seq[array_length(p_seq, 1)];
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock);
  SELECT r.seq, r.hash INTO tail_seq, tail_hash FROM records r ORDER BY r.seq DESC LIMIT 1;
  tail_seq := coalesce(tail_seq, 0);
  tail_hash := coalesce(tail_hash, repeat('0', 64));
  IF tail_seq <> p_prev_seq OR tail_hash <> p_prev_hash THEN
    ok := false;
    RETURN;
  END IF;
  INSERT INTO records (seq, type, name, tenant, topic, action_id, ref, stream, body, hash)
    SELECT * FROM unnest(p_seq, p_type, p_name, p_tenant, p_topic, p_action_id, p_ref, p_stream, p_body, p_hash);
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
