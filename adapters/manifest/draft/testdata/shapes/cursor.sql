-- A cursor relay: an append-only message table with an AUTO_INCREMENT
-- offset and a uuid the sink carries, and an offsets table with the last
-- offset each consumer group has acked. No row has a status.

CREATE TABLE relay_log (
  `offset`    BIGINT       NOT NULL AUTO_INCREMENT,
  uuid        CHAR(36)     NOT NULL,
  topic       VARCHAR(128) NOT NULL,
  payload     JSON         NOT NULL,
  created_at  DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (`offset`)
);

CREATE TABLE relay_offsets (
  consumer_group  VARCHAR(64)  NOT NULL PRIMARY KEY,
  offset_acked    BIGINT       NOT NULL DEFAULT 0,
  updated_at      DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
);
