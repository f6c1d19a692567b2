CREATE TABLE ai_jobs (
  id          VARCHAR(64)  NOT NULL PRIMARY KEY,
  queue_name  VARCHAR(128) NOT NULL,
  status      VARCHAR(16)  NOT NULL,
  created_at  DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at  DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)
);

CREATE TABLE outbox_events (
  id            BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
  event_type    VARCHAR(64)   NOT NULL,
  aggregate_id  VARCHAR(64)   NOT NULL,
  payload       JSON          NOT NULL,
  status        VARCHAR(16)   NOT NULL DEFAULT 'pending',
  attempts      INT           NOT NULL DEFAULT 0,
  available_at  DATETIME(6)   NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  locked_by     VARCHAR(128)  NULL,
  lock_token    VARCHAR(64)   NULL,
  locked_until  DATETIME(6)   NULL,
  last_error    VARCHAR(1024) NULL,
  published_at  DATETIME(6)   NULL,
  created_at    DATETIME(6)   NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY idx_outbox_claim (status, available_at, id)
);
