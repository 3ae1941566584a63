-- What every replica must agree on besides the log (orchestrator/shared_state_pg.py).
-- Idempotency keys: one row per (tenant, key), claimed by the start that will create its action
-- (INSERT ... ON CONFLICT DO NOTHING: one start wins, the others answer with its action).
CREATE TABLE IF NOT EXISTS metis_idempotency_keys (
  tenant text NOT NULL,
  key text NOT NULL,
  action_id text NOT NULL,
  params_hash text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant, key)
);
-- Approvals as their newest log record shows them; a decision is begun with one conditional
-- UPDATE (pending and not being decided), so two approvers on two replicas cannot both decide.
CREATE TABLE IF NOT EXISTS metis_approvals (
  approval_id text PRIMARY KEY,
  tenant text NOT NULL,
  kind text NOT NULL,
  requested_by text NOT NULL,
  status text NOT NULL,
  body jsonb NOT NULL,
  deciding_since timestamptz,
  created_seq bigserial
);
CREATE INDEX IF NOT EXISTS metis_approvals_tenant ON metis_approvals (tenant, created_seq);
-- Token buckets (rate limits that belong to a tenant, not to a replica), refilled from the
-- database's clock so replicas' clocks do not matter.
CREATE TABLE IF NOT EXISTS metis_rate_buckets (
  bucket text PRIMARY KEY,
  tokens double precision NOT NULL,
  stamp timestamptz NOT NULL
);
