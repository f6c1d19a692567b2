-- A dispatcher schema in a vocabulary of its own, for `outboxchaos init`'s
-- tests: messages that go out for deliveries. audit_log is a decoy that has
-- an AUTO_INCREMENT id but is neither an outbox nor a jobs table.

CREATE TABLE deliveries (
  delivery_ref  VARCHAR(64)  NOT NULL,
  channel       VARCHAR(128) NOT NULL,
  state         ENUM('waiting','enqueued','working','finished','cancelled') NOT NULL DEFAULT 'waiting',
  requested_at  TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (delivery_ref)
);

CREATE TABLE outgoing_messages (
  seq           BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  message_type  VARCHAR(64)  NOT NULL,
  delivery_ref  VARCHAR(64)  NOT NULL,
  body          JSON         NOT NULL,
  status        VARCHAR(16)  NOT NULL DEFAULT 'new',
  tries         INT          NOT NULL DEFAULT 0,
  not_before    DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  claimed_by    VARCHAR(128) NULL,
  claim_token   CHAR(36)     NULL,
  claimed_until DATETIME(6)  NULL,
  error_text    TEXT         NULL,
  sent_at       DATETIME(6)  NULL,
  inserted_at   DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (seq),
  KEY idx_due (status, not_before, seq),
  CONSTRAINT fk_delivery FOREIGN KEY (delivery_ref) REFERENCES deliveries (delivery_ref),
  CONSTRAINT status_words CHECK (status IN ('new', 'sending', 'sent', 'dead'))
);

CREATE TABLE audit_log (
  id      BIGINT AUTO_INCREMENT PRIMARY KEY,
  actor   VARCHAR(64),
  action  VARCHAR(64),
  at      DATETIME(6)
);
