-- go-pgskip: a PostgreSQL outbox with a status word, a lease and a fencing
-- token per claim. The application writes queue, payload and message_id in
-- its own transaction; the relay owns every other column.
-- status: new, leased (locked_by holds it until locked_until), done, dead.
CREATE TABLE relay_outbox (
  id            BIGSERIAL   PRIMARY KEY,
  message_id    uuid        NOT NULL UNIQUE,          -- the BullMQ jobId
  queue         text        NOT NULL,                 -- the BullMQ queue
  payload       jsonb       NOT NULL,                 -- the job's data
  status        text        NOT NULL DEFAULT 'new',
  attempts      integer     NOT NULL DEFAULT 0,       -- claims so far
  available_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  locked_by     text        NULL,
  lease_token   uuid        NULL,                     -- fences every write of a claim
  locked_until  timestamptz NULL,
  last_error    text        NULL,
  published_at  timestamptz NULL,
  created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT relay_outbox_status CHECK (status IN ('new', 'leased', 'done', 'dead'))
);

CREATE INDEX relay_outbox_due ON relay_outbox (available_at, id) WHERE status = 'new';
CREATE INDEX relay_outbox_leases ON relay_outbox (locked_until, id) WHERE status = 'leased';
