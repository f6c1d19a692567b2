'use strict';
// Runs Queue operations in order with a real BullMQ Queue.
// Argument: {"pkg","url","queue","timeoutMs","ops":[{"op":"pause"|"resume"|"add",
//            "name","data","opts"}]}. Prints {"op","result"} per operation.
const { args, bullmq, connection, emit, fail, bound } = require('./lib');

async function main() {
  const a = args();
  bound(a.timeoutMs || 30000, () => 'queue operations did not finish');
  const { Queue } = bullmq(a.pkg);
  const queue = new Queue(a.queue, { connection: connection(a.url) });
  for (const op of a.ops) {
    switch (op.op) {
      case 'pause':
        await queue.pause();
        emit({ op: 'pause' });
        break;
      case 'resume':
        await queue.resume();
        emit({ op: 'resume' });
        break;
      case 'add': {
        const job = await queue.add(op.name, op.data, op.opts);
        emit({ op: 'add', result: job.id });
        break;
      }
      default:
        fail(`unknown op ${JSON.stringify(op.op)}`);
    }
  }
  await queue.close();
  process.exit(0);
}

main().catch((err) => fail(`queue.js: ${err && err.stack ? err.stack : err}`));
