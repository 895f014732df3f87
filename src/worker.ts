import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createActivities } from './activities/index.js';
import { loadConfig } from './lib/config.js';
import { closeContext, createContext } from './platform/context.js';
import { bindSearchToArtifacts } from './search/artifact-hook-binding.js';
import { createArtifactSource } from './search/artifact-source-db.js';
import { createConfiguredSearchHandlers, createSearchEngine } from './search/index.js';
import { sweepSearchIndex } from './search/sweep.js';
import { dropOrphanGraphs, graphBuilder, graphMaintenance } from './search/semantic-graph-build.js';
import { usageRecorderFor } from './search/usage.js';
import { ensureCleanupSchedule } from './temporal/schedules.js';
import { ensureOutboxDrainers } from './temporal/start.js';
import type { DrainInput } from './temporal/outbox-messages.js';
import { createCompileActivities } from './activities/compile.js';
import { createAutoCompileHandler } from './projects/auto-compile.js';
import type { OutboxHandler } from './outbox/outbox.js';
import type { OwnDrainer } from './outbox/drain.js';
import { webhookDrainer } from './feed/webhook-drain.js';
import { eventOut } from './shapes/events.js';
import { createWikiHandler } from './wiki/handler.js';
import { engineStatuses, engineSummary } from './projects/engine-availability.js';
import type { Logger } from './lib/logger.js';
import { contextRegistry } from './platform/metrics.js';
import { serveWorkerMetrics } from './platform/metrics-server.js';
import { ensureSearchAttributes, SearchAttributesMissingError } from './temporal/search-attributes.js';

/** The worker process: runs workflows (from the pre-built bundle when present) and activities. */
const here = path.dirname(fileURLToPath(import.meta.url));
export const WORKFLOW_BUNDLE_PATH = path.resolve(here, '../dist/workflow-bundle.js');

const config = loadConfig();
const ctx = await createContext(config, 'worker');
// Before the first native connection: the SDK's runtime metrics go to a loopback exporter the worker's /metrics reads.
const sdkPort = installSdkMetrics(config.workerMetrics.sdkPort, ctx.logger);
const metricsServer = await serveWorkerMetrics(
  { ...config.workerMetrics, sdkPort },
  contextRegistry(ctx.pool),
  ctx.logger,
);
// Every workflow start carries DriveId & co.: a namespace without them would refuse the starts (docs/operations.md).
try {
  const added = await ensureSearchAttributes(ctx.temporal, config.temporal.namespace);
  if (added.length) ctx.logger.info({ added }, 'temporal: search attributes registered');
} catch (err) {
  if (!(err instanceof SearchAttributesMissingError)) throw err;
  ctx.logger.fatal(err.message);
  process.exit(1);
}
const engine = createSearchEngine(config, ctx.pool);
// Large drives get a graph index for find's semantic leg (PostgreSQL engine only; Typesense indexes its vectors).
const graphUpkeep = config.typesense ? undefined : graphMaintenance(ctx);
const outboxHandlers: (OutboxHandler | OwnDrainer)[] = [
  ...createConfiguredSearchHandlers(
    config,
    ctx.pool,
    engine,
    createArtifactSource(ctx),
    usageRecorderFor(ctx),
    graphUpkeep,
  ),
];
// The wiki's topic exists only with a language model configured (docs/decisions.md, Wiki).
if (config.llm) outboxHandlers.push(createWikiHandler(ctx));
outboxHandlers.push(createAutoCompileHandler(ctx));
// Webhook deliveries: a topic with its own table, drained by the same workflows (docs/decisions/feed.md).
outboxHandlers.push(webhookDrainer(ctx.pool, config, eventOut));
// The cleanup activity purges artifacts here, so this process removes them from the engine at once too.
bindSearchToArtifacts(ctx.artifactChanges, engine);
const connection = await NativeConnection.connect({ address: config.temporal.address! });

const workflowSource = existsSync(WORKFLOW_BUNDLE_PATH)
  ? { workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } }
  : { workflowsPath: createRequire(import.meta.url).resolve('./workflows/index.ts') };

const worker = await Worker.create({
  connection,
  namespace: config.temporal.namespace,
  taskQueue: config.temporal.taskQueue,
  activities: createActivities(ctx, {
    outboxHandlers,
    // The index's consistency check, then the semantic graphs of drives with no passage left (purged).
    sweep: async () => ({ ...(await sweepSearchIndex(ctx)), graphsDropped: await dropOrphanGraphs(graphBuilder(ctx)) }),
  }),
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
// One drainer per topic and shard (docs/decisions.md, Indexing); the first worker to boot starts them.
const { shards, ...drainTuning } = config.outbox;
const drains = outboxHandlers.flatMap(({ topic }) =>
  Array.from({ length: shards }, (_, index): DrainInput => ({
    topic,
    shard: { index, count: shards },
    ...drainTuning,
  })),
);
await ensureOutboxDrainers({ temporal: ctx.temporal, taskQueue: config.temporal.taskQueue }, drains);
ctx.logger.info({ taskQueue: config.temporal.taskQueue, bundle: 'workflowBundle' in workflowSource }, 'worker running');
ctx.logger.info({ engines: engineStatuses(config.compile.enginePath) }, engineSummary(config.compile.enginePath));

// Ctrl-C reaches the whole process group and the launcher also sends SIGTERM: shut down once.
let stopping = false;
const shutdown = () => {
  if (stopping) return;
  stopping = true;
  worker.shutdown();
  compileWorker.shutdown();
  metricsServer?.close();
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
await Promise.all([worker.run(), compileWorker.run()]);
await connection.close();
await closeContext(ctx);

/** Installs the SDK runtime with its Prometheus exporter on loopback; returns the port, or 0 when it could not bind. */
function installSdkMetrics(port: number, logger: Logger): number {
  if (!port) return 0;
  try {
    Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}` } } } });
    return port;
  } catch (err) {
    logger.warn(
      { err: (err as Error).message, port },
      'metrics: the Temporal SDK exporter could not bind; none served',
    );
    return 0;
  }
}
