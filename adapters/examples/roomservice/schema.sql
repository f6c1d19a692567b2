-- room-service's outbox, in its own vocabulary (the room outbox compensation
-- worker guide): status pending | delivering | delivered | retryable | failed,
-- a lease in lock_until held by worker_id, retry_count counting failed
-- deliveries, and retry_at (the guide's planned next_retry_at) for its
-- fixed-interval retry. The tasks table is what the events are about.

CREATE TABLE room_tasks (
  task_id     VARCHAR(64)  NOT NULL PRIMARY KEY,
  queue       VARCHAR(128) NOT NULL,
  state       VARCHAR(16)  NOT NULL,          -- new -> dispatched (this worker); running, done (job workers)
  created_at  DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at  DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)
);

CREATE TABLE room_outbox (
  event_id      BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
  event_type    VARCHAR(64)   NOT NULL,
  task_id       VARCHAR(64)   NOT NULL,       -- the room_tasks row the event is about
  envelope      JSON          NOT NULL,
  status        VARCHAR(16)   NOT NULL DEFAULT 'pending',
  retry_count   INT           NOT NULL DEFAULT 0,
  retry_at      DATETIME(6)   NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  worker_id     VARCHAR(128)  NULL,
  lock_until    DATETIME(6)   NULL,
  last_error    VARCHAR(1024) NULL,
  delivered_at  DATETIME(6)   NULL,
  created_at    DATETIME(6)   NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY idx_room_outbox_scan (status, retry_at, event_id)
);
