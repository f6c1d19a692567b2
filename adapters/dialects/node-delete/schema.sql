-- node-delete: a relay that deletes a row once the broker has it. No status
-- column: a row is pending, or claimed while lease_until is in the future on
-- the database clock; a published row is gone; a row that failed for good is
-- moved to relay_dead_letters in the transaction that deletes it.
CREATE TABLE relay_outbox (
  id              BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  topic           VARCHAR(128) NOT NULL,
  payload         JSON         NOT NULL,
  lease_owner     VARCHAR(128) NULL,
  lease_until     DATETIME(6)  NULL,
  attempts        INT          NOT NULL DEFAULT 0,
  next_attempt_at DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  last_error      TEXT         NULL,
  KEY relay_outbox_due (next_attempt_at)
);

CREATE TABLE relay_dead_letters (
  outbox_id BIGINT      NOT NULL PRIMARY KEY,
  payload   JSON        NOT NULL,
  reason    TEXT        NOT NULL,
  failed_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
);
