'use strict';
// Listens with a real BullMQ QueueEvents from the start of the stream until
// it has seen `expect` (strings "event:jobId", "added:jobId:name").
// Argument: {"pkg","url","queue","expect":[...],"timeoutMs"}.
// Prints {"ready":true}, then {"seen":[...]} with every event seen, in order.
const { args, bullmq, connection, emit, fail, bound } = require('./lib');

async function main() {
  const a = args();
  const seen = [];
  bound(a.timeoutMs || 30000, () => `saw ${JSON.stringify(seen)}, want ${JSON.stringify(a.expect)}`);
  const { QueueEvents } = bullmq(a.pkg);
  const events = new QueueEvents(a.queue, { connection: connection(a.url), lastEventId: '0-0' });
  const note = async (entry) => {
    seen.push(entry);
    if (a.expect.every((want) => seen.includes(want))) {
      emit({ seen });
      await events.close();
      process.exit(0);
    }
  };
  events.on('added', ({ jobId, name }) => note(`added:${jobId}:${name}`));
  events.on('waiting', ({ jobId }) => note(`waiting:${jobId}`));
  events.on('duplicated', ({ jobId }) => note(`duplicated:${jobId}`));
  events.on('error', (err) => process.stderr.write(`queue events error: ${err}\n`));
  await events.waitUntilReady();
  emit({ ready: true });
}

main().catch((err) => fail(`events.js: ${err && err.stack ? err.stack : err}`));
