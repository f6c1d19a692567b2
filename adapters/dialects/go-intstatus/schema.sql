-- go-intstatus: the outbox of an application that writes a uuid key of its own
-- (BINARY(16)) and keeps each message's state as an integer code.
-- state: 0 new, 1 in flight (owner holds it until lease_until), 2 sent, 3 dead.
-- No jobs table: the row carries the message; topic names its BullMQ queue.
CREATE TABLE outbox_messages (
  id           BINARY(16)   NOT NULL PRIMARY KEY,
  topic        VARCHAR(128) NOT NULL,
  payload      JSON         NOT NULL,
  state        TINYINT      NOT NULL DEFAULT 0,
  tries        INT          NOT NULL DEFAULT 0,
  next_try_at  DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  owner        VARCHAR(128) NULL,
  lease_until  DATETIME(6)  NULL,
  error        TEXT         NULL,
  sent_at      DATETIME(6)  NULL,
  created_at   DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY outbox_messages_due (state, next_try_at),
  KEY outbox_messages_lease (state, lease_until)
);
