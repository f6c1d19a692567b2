-- Integer status codes and a BINARY(16) uuid key, no jobs table.

CREATE TABLE outbox (
  id               BINARY(16)   NOT NULL PRIMARY KEY,
  topic            VARCHAR(64)  NOT NULL,
  payload          BLOB         NOT NULL,
  status           TINYINT      NOT NULL DEFAULT 0,
  attempts         INT          NOT NULL DEFAULT 0,
  next_attempt_at  DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  locked_by        VARCHAR(64)  NULL,
  locked_until     DATETIME(6)  NULL,
  last_error       TEXT         NULL,
  published_at     DATETIME(6)  NULL,
  created_at       DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
);
