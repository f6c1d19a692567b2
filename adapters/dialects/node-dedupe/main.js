'use strict';
// node-dedupe: a dialect dispatcher for outboxchaos (manifest.yaml says its
// convention). `node main.js --check` checks only that the npm packages are
// installed (the manifest's build step).

const NAME = 'node-dedupe';

function die(code, line) {
  process.stderr.write(NAME + ': ' + String(line).replace(/\s+/g, ' ').trim() + '\n');
  process.exit(code);
}

function packagesPresent() {
  for (const name of ['bullmq', 'ioredis', 'mysql2']) {
    try {
      require.resolve(name);
    } catch (_) {
      die(2, 'npm package ' + name + ' is not installed: run `npm ci` in ' + __dirname + ' (or `make node-deps`)');
    }
  }
}

async function start() {
  packagesPresent();
  if (process.argv.includes('--check')) return;
  const { read, BadSetting } = require('./lib/settings');
  let s;
  try {
    s = read(process.env);
  } catch (err) {
    if (err instanceof BadSetting) die(2, err.message);
    throw err;
  }
  const say = (line) => process.stdout.write(NAME + ' ' + s.instance + ': ' + line + '\n');
  const mysql = require('mysql2/promise');
  const pool = mysql.createPool({
    uri: s.mysqlUrl, connectionLimit: 3, connectTimeout: 2000,
    supportBigNumbers: true, bigNumberStrings: true, dateStrings: true, timezone: 'Z',
  });
  pool.on('error', (err) => say('mysql: ' + err.message));
  const { Relay } = require('./lib/relay');
  const relay = new Relay(s, pool, say);
  process.once('SIGTERM', () => {
    say('SIGTERM: no more claims; releasing what is held');
    relay.stop();
    setTimeout(() => die(1, 'still stopping 8s after SIGTERM'), 8000).unref();
  });
  say('up' + (s.plant ? ' (planted bug ' + s.plant + ')' : '') + ', dedupe ttl ' + s.dedupeTtlMs + 'ms');
  await relay.run();
  await relay.close();
  await pool.end().catch(() => {});
  say('stopped');
  process.exit(0);
}

start().catch((err) => die(1, 'fatal: ' + (err && err.message ? err.message : err)));
