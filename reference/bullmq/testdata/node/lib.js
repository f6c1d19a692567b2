'use strict';
// Shared by the compatibility scripts that reference/bullmq's Go tests run.
// Every script takes one JSON argument and writes one JSON object per line
// on stdout; it exits non-zero with a reason on stderr when anything fails.

const ALIASES = ['bullmq5', 'bullmq6'];

function args() {
  if (process.argv.length !== 3) {
    fail(`usage: node ${process.argv[1]} '<json arguments>'`);
  }
  return JSON.parse(process.argv[2]);
}

// bullmq loads one of the pinned npm aliases from package.json.
function bullmq(alias) {
  if (!ALIASES.includes(alias)) {
    fail(`unknown bullmq alias ${JSON.stringify(alias)}, want one of ${ALIASES.join(', ')}`);
  }
  return require(alias);
}

// connection turns redis://host:port/db into ioredis options. Workers need
// maxRetriesPerRequest: null; the other clients accept it too.
function connection(url) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port),
    db: Number(u.pathname.slice(1) || 0),
    maxRetriesPerRequest: null,
  };
}

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function fail(msg) {
  process.stderr.write(msg + '\n');
  process.exit(2);
}

// bound ends the process when it runs longer than ms.
function bound(ms, what) {
  const timer = setTimeout(() => fail(`timed out after ${ms} ms: ${what()}`), ms);
  timer.unref();
}

module.exports = { args, bullmq, connection, emit, fail, bound };
