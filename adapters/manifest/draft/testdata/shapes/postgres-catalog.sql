-- A PostgreSQL outbox beside a jobs table, for init's catalog tests: an
-- identity key, a CHECK of status words, a foreign key to the jobs table
-- whose status is an ENUM type, TIMESTAMPTZ and JSONB, and an index.

CREATE TYPE job_state AS ENUM ('new', 'dispatched', 'running', 'done');

CREATE TABLE jobs (
  id     TEXT      NOT NULL PRIMARY KEY,
  queue  TEXT      NOT NULL,
  state  job_state NOT NULL DEFAULT 'new'
);

CREATE TABLE outbox (
  id            BIGINT       GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_type    TEXT         NOT NULL,
  job_id        TEXT         NOT NULL REFERENCES jobs (id),
  payload       JSONB        NOT NULL,
  status        VARCHAR(16)  NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'dead')),
  attempts      INTEGER      NOT NULL DEFAULT 0,
  available_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
  locked_by     TEXT,
  locked_until  TIMESTAMPTZ,
  last_error    TEXT,
  published_at  TIMESTAMPTZ,
  created_at    TIMESTAMPTZ  NOT NULL DEFAULT now()
);

CREATE INDEX outbox_due ON outbox (status, available_at);

CREATE TABLE audit (
  seq    BIGSERIAL PRIMARY KEY,
  "user" TEXT,
  at     TIMESTAMPTZ
);
