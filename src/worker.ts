import { NativeConnection, Worker } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createActivities } from './activities/index.js';
import { loadConfig } from './config.js';
import { closeContext, createContext } from './context.js';
import { bindSearchToArtifacts, createSearchHooks, flushSearchHooks } from './search/artifact-hook-binding.js';
import { createArtifactSource } from './search/artifact-source-db.js';
import { createIndexingDeps } from './search/index.js';
import { sweepSearchIndex } from './search/sweep.js';
import { usageRecorderFor } from './search/usage.js';
import { ensureCleanupSchedule } from './temporal/schedules.js';
import { createCompileActivities } from './activities/compile.js';
import { bindAutoCompileToArtifacts } from './projects/auto-compile.js';

/** The worker process: runs workflows (from the pre-built bundle when present) and activities. */
const here = path.dirname(fileURLToPath(import.meta.url));
export const WORKFLOW_BUNDLE_PATH = path.resolve(here, '../dist/workflow-bundle.js');

const config = loadConfig();
const ctx = await createContext(config, 'worker');
const indexing = createIndexingDeps(config, ctx.pool, createArtifactSource(ctx), usageRecorderFor(ctx));
// The cleanup activity purges artifacts here, so this process tells the index too; the sweeper repairs missed hooks.
const searchHooks = createSearchHooks(ctx, indexing.engine);
bindSearchToArtifacts(searchHooks);
// A purge or restore in this process under an auto-compile project still reaches its debouncer.
bindAutoCompileToArtifacts(ctx);
const connection = await NativeConnection.connect({ address: config.temporal.address! });

const workflowSource = existsSync(WORKFLOW_BUNDLE_PATH)
  ? { workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } }
  : { workflowsPath: createRequire(import.meta.url).resolve('./workflows/index.ts') };

const worker = await Worker.create({
  connection,
  namespace: config.temporal.namespace,
  taskQueue: config.temporal.taskQueue,
  activities: createActivities(ctx, { indexing, sweep: () => sweepSearchIndex(ctx, searchHooks) }),
  ...workflowSource,
});

// Compile activities have their own task queue, so at most COMPILE_CONCURRENCY engines run here at once
// whatever the other queues are doing (docs/decisions.md, Projects and compile jobs).
const compileWorker = await Worker.create({
  connection,
  namespace: config.temporal.namespace,
  taskQueue: config.compile.taskQueue,
  activities: createCompileActivities(ctx),
  maxConcurrentActivityTaskExecutions: config.compile.concurrency,
  // Heartbeats (and so cancellations) reach the server within about a second.
  maxHeartbeatThrottleInterval: '1 second',
  defaultHeartbeatThrottleInterval: '1 second',
});

await ensureCleanupSchedule(ctx.temporal, config);
ctx.logger.info({ taskQueue: config.temporal.taskQueue, bundle: 'workflowBundle' in workflowSource }, 'worker running');

// Ctrl-C reaches the whole process group and the launcher also sends SIGTERM: shut down once.
let stopping = false;
const shutdown = () => {
  if (stopping) return;
  stopping = true;
  worker.shutdown();
  compileWorker.shutdown();
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
await Promise.all([worker.run(), compileWorker.run()]);
await flushSearchHooks();
await connection.close();
await closeContext(ctx);
