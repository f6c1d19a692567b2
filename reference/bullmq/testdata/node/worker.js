'use strict';
// Runs a real BullMQ Worker until it has completed `count` jobs.
// Argument: {"pkg","url","queue","count","drainDelay","timeoutMs","prefix"}
// (prefix: the BullMQ key prefix, default "bull").
// Prints {"ready":true} once the worker is connected, then
// {"done":[{"id","name","data","attemptsMade"}...]} in completion order.
const { args, bullmq, connection, emit, fail, bound } = require('./lib');

async function main() {
  const a = args();
  const done = [];
  bound(a.timeoutMs || 30000, () => `completed ${done.length} of ${a.count} jobs, the last: ${JSON.stringify(done.slice(-5))}`);
  const { Worker } = bullmq(a.pkg);
  const worker = new Worker(a.queue, async () => 'ok', {
    connection: connection(a.url),
    prefix: a.prefix || 'bull',
    drainDelay: a.drainDelay || 5,
    autorun: false,
  });
  worker.on('failed', (job, err) => fail(`job ${job && job.id} failed: ${err}`));
  worker.on('error', (err) => process.stderr.write(`worker error: ${err}\n`));
  worker.on('completed', async (job) => {
    done.push({ id: job.id, name: job.name, data: job.data, attemptsMade: job.attemptsMade });
    if (done.length === a.count) {
      emit({ done });
      await worker.close();
      process.exit(0);
    }
  });
  await worker.waitUntilReady();
  emit({ ready: true });
  await worker.run();
}

main().catch((err) => fail(`worker.js: ${err && err.stack ? err.stack : err}`));
