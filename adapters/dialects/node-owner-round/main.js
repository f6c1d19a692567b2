'use strict';
// node-owner-round: a dialect dispatcher for outboxchaos (see manifest.yaml).
// `node main.js --check` only checks that the npm packages are installed.

const path = require('node:path');

const NAME = 'node-owner-round';

function fatal(line, code) {
  process.stderr.write(NAME + ': ' + line.replace(/\s+/g, ' ') + '\n');
  process.exit(code);
}

function checkPackages() {
  for (const p of ['bullmq', 'ioredis', 'mysql2']) {
    try {
      require.resolve(p);
    } catch (_) {
      fatal('npm package ' + p + ' is missing: run `npm ci` in ' + path.resolve(__dirname) + ' (or `make node-deps`)', 2);
    }
  }
}

async function main() {
  checkPackages();
  if (process.argv.includes('--check')) return;
  const { load, ConfigError } = require('./lib/config');
  let cfg;
  try {
    cfg = load(process.env);
  } catch (err) {
    if (err instanceof ConfigError) fatal('config: ' + err.message, 2);
    throw err;
  }
  const mysql = require('mysql2/promise');
  const { Dispatcher } = require('./lib/dispatcher');
  const log = (line) => console.log(NAME + ' ' + cfg.instance + ': ' + line);
  const pool = mysql.createPool({
    uri: cfg.mysqlUrl, connectionLimit: 4, connectTimeout: 2000,
    supportBigNumbers: true, bigNumberStrings: true, dateStrings: true,
  });
  pool.on('error', (err) => log('mysql: ' + err.message));
  const d = new Dispatcher(cfg, pool, log);
  process.on('SIGTERM', () => {
    log('SIGTERM: stopping');
    d.stop();
    setTimeout(() => fatal('graceful stop took over 8s', 1), 8000).unref();
  });
  log('started' + (cfg.plant ? ' with planted bug ' + cfg.plant : ''));
  await d.run();
  await d.close();
  await pool.end().catch(() => {});
  log('stopped');
  process.exit(0);
}

main().catch((err) => fatal('fatal: ' + (err && err.stack ? err.stack.split('\n')[0] : String(err)), 1));
