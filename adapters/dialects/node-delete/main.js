'use strict';
// node-delete: an outbox relay that deletes a row once its Redis list has
// the message (README.md). `node main.js --check` only checks that the npm
// packages are installed.

const NAME = 'node-delete';

// die writes one line on stderr and exits with code.
function die(code, message) {
  process.stderr.write(`${NAME}: ${String(message).replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(code);
}

const absent = ['ioredis', 'mysql2'].filter((pkg) => {
  try {
    require.resolve(pkg);
    return false;
  } catch (_) {
    return true;
  }
});
if (absent.length > 0) die(2, `npm packages missing (${absent.join(', ')}): run \`npm ci\` in ${__dirname}, or \`make node-deps\``);
if (process.argv.includes('--check')) process.exit(0);

const { readConfig, ConfigError } = require('./lib/config');

let cfg;
try {
  cfg = readConfig(process.env);
} catch (err) {
  die(err instanceof ConfigError ? 2 : 1, err.message);
}

const { Store } = require('./lib/store');
const { Broker } = require('./lib/broker');
const { Relay } = require('./lib/relay');

const log = (line) => console.log(`${new Date().toISOString()} [${NAME} ${cfg.owner}] ${line}`);
const store = new Store(cfg, log);
const broker = new Broker(cfg, log);
const relay = new Relay(cfg, store, broker, log);

// SIGTERM (or SIGINT): finish the row in hand, give the other leases back,
// exit 0. A relay stuck on a dead link cannot give anything back: it exits
// 1 after 8 s (the harness waits 10), and its leases run out.
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    log(`${signal}: stopping`);
    relay.stop();
    setTimeout(() => die(1, `still not stopped 8s after ${signal}`), 8000).unref();
  });
}

log(`relaying${cfg.plant ? ` with the planted bug ${cfg.plant}` : ''}: batch ${cfg.batch}, lease ${cfg.leaseMs}ms, max attempts ${cfg.maxAttempts}`);
relay
  .run()
  .then(() => Promise.allSettled([store.close(), broker.close()]))
  .then(() => {
    log('stopped');
    process.exit(0);
  })
  .catch((err) => die(1, `fatal: ${err.stack || err.message}`));
