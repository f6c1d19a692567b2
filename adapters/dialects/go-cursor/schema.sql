-- go-cursor's tables: an append-only message log with an AUTO_INCREMENT
-- offset, and one row per consumer group with the last offset it acked.
-- No row of the log ever changes: where a message is, the group's offset says.
CREATE TABLE outbox_messages (
  `offset`   BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  uuid       CHAR(36)     NOT NULL,              -- the message id: the BullMQ jobId
  topic      VARCHAR(128) NOT NULL,              -- the BullMQ queue
  payload    JSON         NOT NULL,              -- the job's data
  created_at DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
);

CREATE TABLE outbox_offsets (
  consumer_group VARCHAR(255) NOT NULL PRIMARY KEY,
  offset_acked   BIGINT       NOT NULL DEFAULT 0  -- every offset up to this one is published
);
