-- go-pgcursor's tables on PostgreSQL: an append-only message log whose
-- offset is a BIGSERIAL, each row stamped with the id of the transaction
-- that wrote it, and one row per consumer group with the last offset acked.
-- No row of the log ever changes: where a message is, the group's offset says.
--
-- txid comes before msg_offset on purpose: PostgreSQL evaluates an INSERT's
-- defaults in column order, so pg_current_xact_id() gives the writing
-- transaction its id before nextval hands out the offset (doc.go, "Commit-
-- order gaps"). The sequence must keep CACHE 1 (the default): with a cache,
-- sessions hand out offsets out of order in time.
CREATE TABLE outbox_messages (
  txid       xid8         NOT NULL DEFAULT pg_current_xact_id(),
  msg_offset BIGSERIAL    PRIMARY KEY,
  uuid       uuid         NOT NULL,                 -- the message id: the BullMQ jobId
  topic      text         NOT NULL,                 -- the BullMQ queue
  payload    jsonb        NOT NULL,                 -- the job's data
  created_at timestamptz  NOT NULL DEFAULT now()
);

CREATE TABLE outbox_offsets (
  consumer_group text   NOT NULL PRIMARY KEY,
  offset_acked   bigint NOT NULL DEFAULT 0          -- every offset up to this one is published
);
