'use strict';

// OutboxDispatcher: the seed's NestJS service ("[M-AI-03] Outbox
// Dispatcher") in plain JavaScript. One loop per process:
//
//   every poll: recover expired leases (releaseExpiredLocks)
//               claim a batch (FOR UPDATE SKIP LOCKED, lease, fencing token)
//               validate each event (type, job row, created, queue, jobId)
//               add the valid ones to BullMQ (jobId = ai_jobs.id)
//               finalize the batch in one transaction fenced by the token:
//                 published + job created -> queued, failed with a reason,
//                 or pending again with available_at pushed out (backoff)
//
// A batch claimed while stopping, or with too little lease left to add
// safely, is released untouched.

const EVENT_TYPE = 'ai.job.enqueue';

// jobIdProblem says why id is not a legal BullMQ custom job id, or ''.
function jobIdProblem(id) {
  if (!id) return 'it is empty';
  if (Buffer.byteLength(id) > 255) return 'it is longer than 255 bytes';
  if (/^-?\d+$/.test(id)) return 'it is an integer; BullMQ reserves numeric ids';
  if (id.includes(':')) return "it contains ':'";
  if (/[\x00-\x1f\x7f]/.test(id)) return 'it contains a control character';
  return '';
}

// backoffMs is min(max, base * 2^(attempts-1)), jittered into [d/2, d]: the
// lower bound of attempt n+1 is the upper bound of attempt n, so delays
// never shrink until the cap.
function backoffMs(attempts, base, max) {
  let d = base;
  for (let i = 1; i < attempts && d < max; i++) d *= 2;
  d = Math.min(d, max);
  return d / 2 + Math.random() * (d / 2);
}

class OutboxDispatcher {
  constructor(cfg, store, publisher, log) {
    this.cfg = cfg;
    this.store = store;
    this.publisher = publisher;
    this.log = log;
    this.allowed = new Set(cfg.queues);
    this.stopping = false;
    this.wake = null;
    this.lastRecovery = 0;
    this.counts = { published: 0, failed: 0, retried: 0, fenced: 0, released: 0 };
  }

  // run loops until stop() is called; it returns once nothing is held.
  async run() {
    while (!this.stopping) {
      let full = false;
      try {
        full = await this.tick();
      } catch (err) {
        this.log(`tick failed: ${err.message}`);
      }
      if (!full && !this.stopping) await this.sleep(this.cfg.pollMs);
    }
  }

  stop() {
    this.stopping = true;
    if (this.wake) this.wake();
  }

  sleep(ms) {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(t);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  // tick handles one batch; it returns true when the batch was full, so the
  // loop goes again without sleeping.
  async tick() {
    await this.maybeRecover();
    const batch = await this.store.claim();
    if (batch.events.length === 0) return false;
    if (this.stopping) {
      this.counts.released += await this.store.release(batch);
      return false;
    }
    await this.handle(batch);
    return batch.events.length === this.cfg.batchSize;
  }

  async maybeRecover() {
    const now = Date.now();
    if (now - this.lastRecovery < Math.max(this.cfg.pollMs, 200)) return;
    this.lastRecovery = now;
    const n = await this.store.recoverExpired();
    if (n > 0) this.log(`recovered ${n} events whose lease ran out`);
  }

  async handle(batch) {
    const decisions = await this.classify(batch);
    const toAdd = decisions.filter((d) => d.kind === 'add');
    if (toAdd.length > 0) {
      // Check the lease locally before writing to Redis (asynq's rule).
      if (Date.now() > batch.deadline - this.cfg.publishTimeoutMs) {
        this.counts.released += await this.store.release(batch);
        this.log(`released a batch of ${batch.events.length}: too little lease left to add`);
        return;
      }
      const errors = await this.publisher.addAll(toAdd.map((d) => ({ event: d.event, queue: d.queue })));
      toAdd.forEach((d, i) => Object.assign(d, errors[i] ? this.transient(d.event, errors[i]) : { kind: 'published' }));
    }
    try {
      const fenced = await this.store.finalize(batch, decisions);
      this.tally(decisions, fenced);
    } catch (err) {
      // Unknown outcome (the COMMIT may have landed): leave the rows to lease
      // recovery; a landed commit is final and the recovery's guard skips it.
      this.log(`finalize of ${decisions.length} events failed, left to lease recovery: ${err.message}`);
    }
  }

  // classify decides each event's fate (contract step 2). A failure to read
  // the jobs makes the whole batch a transient failure.
  async classify(batch) {
    let jobs;
    try {
      jobs = await this.store.loadJobs([...new Set(batch.events.filter((e) => e.type === EVENT_TYPE).map((e) => e.jobId))]);
    } catch (err) {
      return batch.events.map((e) => ({ event: e, ...this.transient(e, err) }));
    }
    return batch.events.map((e) => ({ event: e, ...this.decide(e, jobs.get(e.jobId)) }));
  }

  decide(event, job) {
    if (event.type !== EVENT_TYPE) return failed('unknown_event_type', `event type ${JSON.stringify(event.type)} is not ${EVENT_TYPE}`);
    if (!job) return failed('job_not_found', `ai_jobs has no row with id ${JSON.stringify(event.jobId)}`);
    if (job.status !== 'created') return { kind: 'published' }; // dispatched before: no second add
    if (!this.allowed.has(job.queue)) return failed('queue_not_allowed', `queue ${JSON.stringify(job.queue)} is not in OUTBOX_QUEUES`);
    const bad = jobIdProblem(event.jobId);
    if (bad) return failed('illegal_job_id', `job id ${JSON.stringify(event.jobId)}: ${bad}`);
    return { kind: 'add', queue: job.queue };
  }

  // transient is a retry with backoff, or failed at the maximum attempts.
  // The attempt number makes consecutive errors differ.
  transient(event, err) {
    const msg = `attempt ${event.attempts} of ${this.cfg.maxAttempts}: ${err && err.message ? err.message : String(err)}`;
    if (event.attempts >= this.cfg.maxAttempts) return { kind: 'failed', error: `max_attempts: ${msg}` };
    return { kind: 'retry', error: msg, delayMs: backoffMs(event.attempts, this.cfg.backoffBaseMs, this.cfg.backoffMaxMs) };
  }

  tally(decisions, fenced) {
    for (const d of decisions) {
      if (d.kind === 'published') this.counts.published++;
      if (d.kind === 'failed') this.counts.failed++;
      if (d.kind === 'retry') this.counts.retried++;
    }
    this.counts.fenced += fenced;
    if (fenced > 0) this.log(`${fenced} events were no longer ours at finalize (lease taken over): not written`);
  }
}

function failed(reason, detail) {
  return { kind: 'failed', error: `${reason}: ${detail}` };
}

module.exports = { OutboxDispatcher, jobIdProblem, backoffMs };
