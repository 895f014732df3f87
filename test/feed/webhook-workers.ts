import path from 'node:path';
import { spawnManaged, type ManagedProcess } from '../../scripts/stack/process.js';
import { ensureOutboxDrainers } from '../../src/temporal/start.js';
import { outboxDrainerWorkflowId, type DrainInput } from '../../src/temporal/outbox-messages.js';
import type { TestApi } from '../helpers/api.js';

/**
 * Workers of a suite's own, with the webhook drainers moved onto a task queue only they poll, so a
 * suite can kill the worker that delivers or give it its own settings. `restore` moves the drainers
 * back to the shared queue and stops the workers.
 */
export function webhookWorkers(api: () => TestApi, suite: string) {
  const mainQueue = process.env.TEMPORAL_TASK_QUEUE!;
  const queue = `${mainQueue}-${suite}`;
  const workers: ManagedProcess[] = [];
  const drains = (): DrainInput[] => {
    const { shards, ...tuning } = api().ctx.config.outbox;
    return Array.from({ length: shards }, (_, index) => ({
      topic: 'webhook',
      shard: { index, count: shards },
      ...tuning,
    }));
  };
  /** Ends the webhook drainers wherever they run and starts them again on `taskQueue`. */
  const moveDrainers = async (taskQueue: string) => {
    const { temporal } = api().ctx;
    for (const d of drains()) {
      await temporal.workflow
        .getHandle(outboxDrainerWorkflowId('webhook', d.shard.index))
        .terminate(`moved by the ${suite} suite`)
        .catch(() => {});
    }
    await ensureOutboxDrainers({ temporal, taskQueue }, drains());
  };
  /**
   * Waits until every webhook drain activity runs on the worker with `pid` (its identity is `<pid>@<host>`). A
   * terminated drainer's activity was once seen to keep its shard's lock for two minutes (its cancellation came late),
   * hence the patience.
   */
  const drainsRunOn = async (pid: number) => {
    for (let i = 0; i < 1500; i++) {
      const running = await Promise.all(
        drains().map(async (d) => {
          const desc = await api()
            .ctx.temporal.workflow.getHandle(outboxDrainerWorkflowId('webhook', d.shard.index))
            .describe();
          const activity = desc.raw.pendingActivities?.[0];
          // 2: PENDING_ACTIVITY_STATE_STARTED
          return String(activity?.lastWorkerIdentity ?? '').startsWith(`${pid}@`) && Number(activity?.state) === 2;
        }),
      );
      if (running.every(Boolean)) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`the webhook drainers never ran on worker ${pid}`);
  };
  return {
    /** A worker on the suite's queue; with `takeOver`, the drainers move to it (and run there) before this resolves. */
    async start(name: string, env: Record<string, string> = {}, takeOver = false) {
      const w = spawnManaged(`${suite}-${name}`, process.execPath, ['--import', 'tsx', path.resolve('src/worker.ts')], {
        logDir: path.resolve(process.env.DATA_DIR ?? '.data', 'logs'),
        env: { ...process.env, TEMPORAL_TASK_QUEUE: queue, ...env },
      });
      workers.push(w);
      if (takeOver) {
        await moveDrainers(queue);
        await drainsRunOn(w.child.pid!);
      }
      return w;
    },
    /** Moves the drainers back to the shared queue and resolves once they run on the worker with `pid`. */
    async returnTo(pid: number) {
      await moveDrainers(mainQueue);
      await drainsRunOn(pid);
    },
    async restore() {
      await moveDrainers(mainQueue);
      for (const w of workers) await w.stop();
    },
  };
}
