-- The receipt log: one row per record, append-only. Same columns and meaning as the embedded
-- SQLite log, so one verifier reads both.
CREATE TABLE records (
  seq bigint PRIMARY KEY CHECK (seq > 0),
  type text NOT NULL,
  name text NOT NULL,
  tenant text NOT NULL,
  topic text,
  action_id text,
  ref text,
  stream text,
  body bytea NOT NULL,
  hash text NOT NULL
);
CREATE INDEX records_stream ON records (stream, seq) WHERE stream IS NOT NULL;
CREATE INDEX records_action ON records (action_id, seq) WHERE action_id IS NOT NULL;
CREATE INDEX records_ref ON records (ref) WHERE ref IS NOT NULL;
CREATE INDEX records_control ON records (type, seq) WHERE type IN ('state', 'approval');

CREATE FUNCTION metis_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'records are append-only' USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER records_no_update BEFORE UPDATE OR DELETE ON records
  FOR EACH ROW EXECUTE FUNCTION metis_refuse_change();
CREATE TRIGGER records_no_truncate BEFORE TRUNCATE ON records
  FOR EACH STATEMENT EXECUTE FUNCTION metis_refuse_change();

-- Signed tree heads, any replica may add one; the first signature of a size is kept.
CREATE TABLE tree_heads (
  tree_size bigint PRIMARY KEY,
  body text NOT NULL
);
