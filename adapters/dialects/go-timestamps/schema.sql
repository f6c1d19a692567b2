-- go-timestamps: an outbox with no status column. Where a message is comes
-- from its timestamps and counters (doc.go): processed_at set = published,
-- abandoned_at set = failed for good, locked_until in the future with
-- neither set = held by a relay (a claim, or a backoff after a failure: the
-- lease column is also the next-try time). The producer writes id (a uuid),
-- topic and payload; the defaults give the rest.
CREATE TABLE outbox (
  id                CHAR(36)     NOT NULL PRIMARY KEY,
  topic             VARCHAR(128) NOT NULL,
  payload           JSON         NOT NULL,
  locked_until      DATETIME(6)  NOT NULL DEFAULT '1970-01-01 00:00:01',
  processed_at      DATETIME(6)  NULL,
  abandoned_at      DATETIME(6)  NULL,
  started_attempts  INT          NOT NULL DEFAULT 0,
  finished_attempts INT          NOT NULL DEFAULT 0,
  created_at        DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY outbox_unsettled (processed_at, abandoned_at, created_at)
);
