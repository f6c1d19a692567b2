'use strict';

// Entry point. `node main.js --check` only verifies that the npm packages
// are installed (the manifest's build step). Otherwise: read the contract's
// environment, run until SIGTERM, then stop claiming, finish the batch in
// hand, close Redis and MySQL and exit 0.

const path = require('node:path');

function checkDeps() {
  for (const dep of ['bullmq', 'mysql2']) {
    try {
      require.resolve(dep);
    } catch (e) {
      process.stderr.write(`node-dispatcher: npm package ${dep} is not installed: run \`npm ci\` in ${__dirname} (make node-deps)\n`);
      process.exit(2);
    }
  }
  const version = require(path.join(path.dirname(require.resolve('bullmq')), '..', '..', 'package.json')).version;
  process.stdout.write(`node-dispatcher: bullmq ${version} and mysql2 installed\n`);
}

function main() {
  if (process.argv.includes('--check')) {
    checkDeps();
    return;
  }
  const { load, ConfigError } = require('./src/config');
  let loaded;
  try {
    loaded = load(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`node-dispatcher: config: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const { config: cfg, warnings } = loaded;
  const log = (msg) => process.stdout.write(`${new Date().toISOString()} ${cfg.instanceId} ${msg}\n`);
  warnings.forEach((w) => log(`warning: ${w}`));
  run(cfg, log).catch((err) => {
    process.stderr.write(`node-dispatcher: ${err.stack || err}\n`);
    process.exit(1);
  });
}

async function run(cfg, log) {
  const { Store } = require('./src/store');
  const { Publisher } = require('./src/publisher');
  const { OutboxDispatcher } = require('./src/dispatcher');
  const store = new Store(cfg);
  const publisher = new Publisher(cfg, log);
  const dispatcher = new OutboxDispatcher(cfg, store, publisher, log);
  process.on('SIGTERM', () => {
    log('SIGTERM: stopping');
    dispatcher.stop();
    // A stop that cannot finish (a dependency hangs) must not hang forever.
    setTimeout(() => {
      process.stderr.write('node-dispatcher: graceful stop took too long\n');
      process.exit(1);
    }, cfg.leaseMs + 5000).unref();
  });
  log(`started: queues ${cfg.queues.join(',')}, prefix ${cfg.prefix}, batch ${cfg.batchSize}, lease ${cfg.leaseMs}ms`);
  await dispatcher.run();
  await publisher.close();
  await store.close();
  log(`stopped: ${JSON.stringify(dispatcher.counts)}`);
  process.exit(0);
}

main();
