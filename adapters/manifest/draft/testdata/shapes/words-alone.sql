-- Status words in a CHECK, a CHAR(36) uuid key, and no jobs table: tasks
-- has an id, a queue and a status, but no column of the outbox names it.

CREATE TABLE tasks (
  id      VARCHAR(64) NOT NULL PRIMARY KEY,
  queue   VARCHAR(64) NOT NULL,
  status  VARCHAR(16) NOT NULL
);

CREATE TABLE message_outbox (
  id             CHAR(36)     NOT NULL PRIMARY KEY,
  topic          VARCHAR(128) NOT NULL,
  entity_id      VARCHAR(64)  NOT NULL,
  body           JSON         NOT NULL,
  status         VARCHAR(16)  NOT NULL DEFAULT 'pending',
  attempts       INT          NOT NULL DEFAULT 0,
  next_retry_at  DATETIME(6)  NULL,
  last_error     TEXT         NULL,
  sent_at        DATETIME(6)  NULL,
  created_at     DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  CONSTRAINT status_words CHECK (status IN ('pending', 'in_flight', 'sent', 'dead'))
);
