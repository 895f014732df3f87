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

/** The worker process: runs workflows (from the pre-built bundle when present) and activities. */
const here = path.dirname(fileURLToPath(import.meta.url));
export const WORKFLOW_BUNDLE_PATH = path.resolve(here, '../dist/workflow-bundle.js');

const config = loadConfig();
const ctx = await createContext(config, 'worker');
const indexing = createIndexingDeps(config, ctx.pool, createArtifactSource(ctx), usageRecorderFor(ctx));
// The cleanup activity purges artifacts here, so this process tells the index too; the sweeper repairs missed hooks.
const searchHooks = createSearchHooks(ctx, indexing.engine);
bindSearchToArtifacts(searchHooks);
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

await ensureCleanupSchedule(ctx.temporal, config);
ctx.logger.info({ taskQueue: config.temporal.taskQueue, bundle: 'workflowBundle' in workflowSource }, 'worker running');

// Ctrl-C reaches the whole process group and the launcher also sends SIGTERM: shut down once.
let stopping = false;
const shutdown = () => {
  if (stopping) return;
  stopping = true;
  worker.shutdown();
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
await worker.run();
await flushSearchHooks();
await connection.close();
await closeContext(ctx);
