-- A relay that deletes a row once the broker has it: no status and no
-- published column, a lease (lease_owner, lease_until), an attempt count,
-- and failures copied into a dead-letter table that names the row's id.

CREATE TABLE outbox_messages (
  id           BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  topic        VARCHAR(128) NOT NULL,
  payload      JSON         NOT NULL,
  attempts     INT          NOT NULL DEFAULT 0,
  lease_owner  VARCHAR(128) NULL,
  lease_until  DATETIME(6)  NULL,
  created_at   DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
);

CREATE TABLE outbox_dead_letters (
  id         BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  outbox_id  BIGINT       NOT NULL,
  topic      VARCHAR(128) NOT NULL,
  payload    JSON         NOT NULL,
  reason     TEXT         NOT NULL,
  failed_at  DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
);
