'use strict';
// node-attempts-at-failure: a dialect dispatcher for outboxchaos (see
// manifest.yaml). `node main.js --check` checks that the npm packages are
// installed, and nothing else.

const ME = 'node-attempts-at-failure';

function quit(code, msg) {
  process.stderr.write(ME + ': ' + String(msg).split(/\s*\n\s*/).join(' ') + '\n');
  process.exit(code);
}

const missing = ['bullmq', 'ioredis', 'mysql2'].filter((p) => {
  try {
    require.resolve(p);
    return false;
  } catch (_) {
    return true;
  }
});
if (missing.length > 0) quit(2, 'npm packages missing (' + missing.join(', ') + '): run `npm ci` in ' + __dirname + ' or `make node-deps`');
if (process.argv.includes('--check')) process.exit(0);

const { parse, EnvError } = require('./lib/env');

let cfg;
try {
  cfg = parse(process.env);
} catch (err) {
  quit(err instanceof EnvError ? 2 : 1, err.message);
}

const mysql = require('mysql2/promise');
const { dispatcher } = require('./lib/loop');

const log = (m) => console.log('[' + ME + ' ' + cfg.me + '] ' + m);
const pool = mysql.createPool({ uri: cfg.mysqlUrl, connectionLimit: 3, connectTimeout: 2000, supportBigNumbers: true, bigNumberStrings: true });
// Every session reads committed: a locking read locks the rows it returns
// and no gaps, so claims never hold up the producer's inserts.
pool.on('connection', (conn) => conn.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED'));
pool.on('error', (err) => log('mysql: ' + err.message));

const d = dispatcher(cfg, pool, log);
process.on('SIGTERM', () => {
  log('SIGTERM');
  d.stop();
  setTimeout(() => quit(1, 'did not stop within 8s of SIGTERM'), 8000).unref();
});
log('running' + (cfg.plant ? ' with the planted bug ' + cfg.plant : ''));
d.run()
  .then(() => pool.end())
  .then(() => process.exit(0))
  .catch((err) => quit(1, 'fatal: ' + err.message));
