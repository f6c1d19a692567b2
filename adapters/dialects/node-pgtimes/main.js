'use strict';
// node-pgtimes: an outbox relay on PostgreSQL whose rows have no status
// column (README.md). `node main.js --check` only checks that the npm
// packages are installed (the manifest's build step).

const NAME = 'node-pgtimes';

// fatal writes one line on stderr and exits with code.
function fatal(code, message) {
  process.stderr.write(`${NAME}: ${String(message).replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(code);
}

const missing = ['pg', 'bullmq', 'ioredis'].filter((pkg) => {
  try {
    require.resolve(pkg);
    return false;
  } catch (_) {
    return true;
  }
});
if (missing.length > 0) fatal(2, `npm packages missing (${missing.join(', ')}): run \`npm ci\` in ${__dirname}, or \`make node-deps\``);
if (process.argv.includes('--check')) process.exit(0);

const config = require('./lib/config');

let cfg;
try {
  cfg = config.load(process.env);
} catch (err) {
  fatal(err instanceof config.ConfigError ? 2 : 1, err.message);
}

const { Store } = require('./lib/store');
const { Sink } = require('./lib/sink');
const { Relay } = require('./lib/relay');

const log = (line) => console.log(`${new Date().toISOString()} ${NAME} ${cfg.owner}: ${line}`);
const store = new Store(cfg, log);
const sink = new Sink(cfg, log);
const relay = new Relay(cfg, store, sink, log);

// SIGTERM: finish the row in hand, give the other leases back, exit 0. A
// relay stuck on a link that answers nothing cannot give anything back: it
// exits 1 after 8 s (the harness waits 10), and its leases run out.
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    relay.stop();
    setTimeout(() => fatal(1, `not stopped 8s after ${signal}`), 8000).unref();
  });
}

log(`relaying to ${cfg.queues.join(', ')}${cfg.plant ? ` with the planted bug ${cfg.plant}` : ''}: batch ${cfg.batch}, lease ${cfg.leaseMs}ms, max attempts ${cfg.maxAttempts}`);
relay
  .run()
  .then(() => Promise.allSettled([store.close(), sink.close()]))
  .then(() => {
    log('stopped');
    process.exit(0);
  })
  .catch((err) => fatal(1, `fatal: ${err.stack || err.message}`));
