-- A foreign schema for the manifest tests; statements end with ';'
-- even inside quotes: 'a;b'.
CREATE TABLE IF NOT EXISTS `tasks` (
  `task_id` VARCHAR(64) NOT NULL PRIMARY KEY,
  queue     VARCHAR(128) NOT NULL COMMENT 'queue; allowlisted',
  state     VARCHAR(16)  NOT NULL,
  updated   DATETIME(6)  NULL
);
/* the outbox */
CREATE TABLE outbox (
  event_id    BIGINT NOT NULL AUTO_INCREMENT,
  kind        VARCHAR(64) NOT NULL,
  task_id     VARCHAR(64) NOT NULL,
  body        JSON NOT NULL,
  status      VARCHAR(16) NOT NULL DEFAULT 'pending',
  tries       INT NOT NULL DEFAULT 0,
  due_at      DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  owner       VARCHAR(128) NULL,
  lease_until DATETIME(6) NULL,
  note        VARCHAR(255) NULL,
  error_text  VARCHAR(1024) NULL,
  PRIMARY KEY (event_id),
  KEY idx_scan (status, due_at, event_id)
);
