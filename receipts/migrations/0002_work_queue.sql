-- The work queue of the distributed mode: one row per action that a worker may run.
-- A worker claims rows with FOR UPDATE SKIP LOCKED and holds them under a lease it renews
-- (heartbeat). Each claim increments ``epoch``: the fencing token a worker shows on every
-- append, so a worker whose lease was lost (and whose job was rescued and claimed again) can no
-- longer write for that action.
CREATE TABLE metis_jobs (
  action_id text PRIMARY KEY,
  tenant text NOT NULL,
  kind text NOT NULL,
  state text NOT NULL DEFAULT 'available'
    CHECK (state IN ('available', 'running', 'parked', 'done', 'failed')),
  payload jsonb NOT NULL DEFAULT '{}',
  attempt integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 3 CHECK (max_attempts > 0),
  epoch bigint NOT NULL DEFAULT 0,
  owner text,
  lease_until timestamptz,
  run_after timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_error text
);
CREATE INDEX metis_jobs_available ON metis_jobs (run_after, created_at) WHERE state = 'available';
CREATE INDEX metis_jobs_leases ON metis_jobs (lease_until) WHERE state = 'running';
