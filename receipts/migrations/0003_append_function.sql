-- One round trip per group commit: the writer builds a batch on the tail it expects and calls
-- metis_append, which takes the log's advisory lock, checks that the tail is the expected one,
-- inserts the batch and NOTIFYs followers, all in the call's own transaction. A moved tail (another
-- replica appended) inserts nothing and returns the actual tail; the writer catches up and retries.
CREATE FUNCTION metis_append(p_lock bigint, p_prev_seq bigint, p_prev_hash text, p_seq bigint[], p_type text[],
                             p_name text[], p_tenant text[], p_topic text[], p_action_id text[], p_ref text[],
                             p_stream text[], p_body bytea[], p_hash text[])
RETURNS TABLE (ok boolean, tail_seq bigint, tail_hash text)
LANGUAGE plpgsql AS $$
DECLARE
  t_seq bigint;
  t_hash text;
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock);
  SELECT r.seq, r.hash INTO t_seq, t_hash FROM records r ORDER BY r.seq DESC LIMIT 1;
  t_seq := coalesce(t_seq, 0);
  t_hash := coalesce(t_hash, repeat('0', 64));
  IF t_seq <> p_prev_seq OR t_hash <> p_prev_hash THEN
    RETURN QUERY SELECT false, t_seq, t_hash;
    RETURN;
  END IF;
  INSERT INTO records (seq, type, name, tenant, topic, action_id, ref, stream, body, hash)
    SELECT * FROM unnest(p_seq, p_type, p_name, p_tenant, p_topic, p_action_id, p_ref, p_stream, p_body, p_hash);
  PERFORM pg_notify('metis_log', p_seq[array_length(p_seq, 1)]::text);
  RETURN QUERY SELECT true, p_seq[array_length(p_seq, 1)], p_hash[array_length(p_hash, 1)];
END
$$;
