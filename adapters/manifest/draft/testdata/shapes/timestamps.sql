-- An outbox whose status is derived from timestamps: no status column;
-- processed_at and abandoned_at say published and failed, locked_until is
-- the lease, started_attempts and finished_attempts count the attempts. Its
-- id is a uuid the writer makes. No jobs table: orders looks like one, but
-- nothing in the outbox points at it.

CREATE TABLE orders (
  id      VARCHAR(64) NOT NULL PRIMARY KEY,
  queue   VARCHAR(64) NOT NULL,
  status  VARCHAR(16) NOT NULL
);

CREATE TABLE outbox (
  id                 CHAR(36)     NOT NULL PRIMARY KEY,
  aggregate_type     VARCHAR(255) NOT NULL,
  aggregate_id       VARCHAR(255) NOT NULL,
  message_type       VARCHAR(255) NOT NULL,
  payload            JSON         NOT NULL,
  metadata           JSON         NULL,
  locked_until       DATETIME(6)  NOT NULL DEFAULT '1970-01-01 00:00:01',
  created_at         DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  processed_at       DATETIME(6)  NULL,
  abandoned_at       DATETIME(6)  NULL,
  started_attempts   SMALLINT     NOT NULL DEFAULT 0,
  finished_attempts  SMALLINT     NOT NULL DEFAULT 0
);
