-- The contract's reference schema (docs/contract.md §1) in PostgreSQL.
-- updated_at has no ON UPDATE in PostgreSQL: nothing the harness reads
-- depends on it.
CREATE TABLE ai_jobs (
  id          VARCHAR(64)  NOT NULL PRIMARY KEY,
  queue_name  VARCHAR(128) NOT NULL,
  status      VARCHAR(16)  NOT NULL,
  created_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
  updated_at  TIMESTAMPTZ  NOT NULL DEFAULT now()
);

CREATE TABLE outbox_events (
  id            BIGSERIAL     PRIMARY KEY,
  event_type    VARCHAR(64)   NOT NULL,
  aggregate_id  VARCHAR(64)   NOT NULL,
  payload       JSONB         NOT NULL,
  status        VARCHAR(16)   NOT NULL DEFAULT 'pending',
  attempts      INTEGER       NOT NULL DEFAULT 0,
  available_at  TIMESTAMPTZ   NOT NULL DEFAULT now(),
  locked_by     VARCHAR(128)  NULL,
  lock_token    VARCHAR(64)   NULL,
  locked_until  TIMESTAMPTZ   NULL,
  last_error    VARCHAR(1024) NULL,
  published_at  TIMESTAMPTZ   NULL,
  created_at    TIMESTAMPTZ   NOT NULL DEFAULT now()
);

CREATE INDEX idx_outbox_claim ON outbox_events (status, available_at, id);
