-- A PostgreSQL outbox as a team's migration writes it: BIGSERIAL,
-- TIMESTAMPTZ and JSONB, status derived from timestamps, no jobs table.

CREATE TABLE outbox (
  id            BIGSERIAL PRIMARY KEY,
  event_type    TEXT        NOT NULL,
  payload       JSONB       NOT NULL,
  attempts      INTEGER     NOT NULL DEFAULT 0,
  locked_until  TIMESTAMPTZ,
  published_at  TIMESTAMPTZ,
  failed_at     TIMESTAMPTZ,
  last_error    TEXT,
  created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
