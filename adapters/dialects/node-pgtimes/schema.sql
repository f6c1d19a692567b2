-- node-pgtimes: a PostgreSQL outbox with no status column. Where a message is
-- comes from its timestamps and two attempt counters (README.md):
--   processed_at set                      published
--   abandoned_at set                      failed for good
--   started_attempts > finished_attempts,
--   locked_until in the future            held by the relay named in locked_by
--   anything else                         pending, due once next_attempt_at has passed
-- Every time is the database's (clock_timestamp(), never the application's).
-- The producer writes id (a uuid), topic and payload; the defaults give the rest.
CREATE TABLE outbox_messages (
  id                uuid        NOT NULL PRIMARY KEY,
  topic             text        NOT NULL,
  payload           jsonb       NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  next_attempt_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  locked_by         text        NULL,
  locked_until      timestamptz NULL,
  started_attempts  integer     NOT NULL DEFAULT 0,
  finished_attempts integer     NOT NULL DEFAULT 0,
  processed_at      timestamptz NULL,
  abandoned_at      timestamptz NULL,
  last_error        text        NULL
);

CREATE INDEX outbox_messages_unsettled ON outbox_messages (created_at)
  WHERE processed_at IS NULL AND abandoned_at IS NULL;
