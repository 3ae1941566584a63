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
