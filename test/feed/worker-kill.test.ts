import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnManaged, type ManagedProcess } from '../../src/stack/process.js';
import { ensureOutboxDrainers } from '../../src/temporal/start.js';
import { outboxDrainerWorkflowId, type DrainInput } from '../../src/temporal/outbox-messages.js';
import { driveClient, useTestApi } from '../artifacts/client.js';
import type { TestApi } from '../helpers/api.js';
import { startReceiver, type Receiver } from './receiver.js';

/**
 * A worker SIGKILLed while it delivers loses nothing. The webhook drainers are moved onto a task queue
 * that only this suite's workers poll, so the killed worker is the one delivering; they are moved back
 * to the shared queue at the end.
 */
const mainQueue = process.env.TEMPORAL_TASK_QUEUE!;
const queue = `${mainQueue}-webhook-kill`;
let api: TestApi;
useTestApi({}, (a) => {
  api = a;
});

const workers: ManagedProcess[] = [];
let receiver: Receiver | undefined;
const startWorker = (n: number) => {
  const w = spawnManaged(
    `webhook-kill-worker-${n}`,
    process.execPath,
    ['--import', 'tsx', path.resolve('src/worker.ts')],
    {
      logDir: path.resolve(process.env.DATA_DIR ?? '.data', 'logs'),
      env: { ...process.env, TEMPORAL_TASK_QUEUE: queue },
    },
  );
  workers.push(w);
  return w;
};

const webhookDrains = (): DrainInput[] => {
  const { shards, ...tuning } = api.ctx.config.outbox;
  return Array.from({ length: shards }, (_, index) => ({
    topic: 'webhook',
    shard: { index, count: shards },
    ...tuning,
  }));
};

/** Ends the webhook drainers wherever they run and starts them again on `taskQueue`. */
async function moveDrainers(taskQueue: string) {
  for (const d of webhookDrains()) {
    await api.ctx.temporal.workflow
      .getHandle(outboxDrainerWorkflowId('webhook', d.shard.index))
      .terminate('moved by test/feed/worker-kill.test.ts')
      .catch(() => {});
  }
  await ensureOutboxDrainers({ temporal: api.ctx.temporal, taskQueue }, webhookDrains());
}

/** Waits until every webhook drain activity runs on the worker with `pid` (its identity is `<pid>@<host>`). */
async function drainsRunOn(pid: number) {
  for (let i = 0; i < 600; i++) {
    const running = await Promise.all(
      webhookDrains().map(async (d) => {
        const desc = await api.ctx.temporal.workflow
          .getHandle(outboxDrainerWorkflowId('webhook', d.shard.index))
          .describe();
        const activity = desc.raw.pendingActivities?.[0];
        return String(activity?.lastWorkerIdentity ?? '').startsWith(`${pid}@`) && String(activity?.state) === '2';
      }),
    );
    if (running.every(Boolean)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the webhook drainers never ran on worker ${pid}`);
}

afterAll(async () => {
  await moveDrainers(mainQueue);
  for (const w of workers) await w.stop();
  await receiver?.close();
});

describe('a worker killed during a webhook delivery', () => {
  it('is a retry on the next worker: the same event again, then the rest in order, nothing lost', async () => {
    const first = startWorker(1);
    await moveDrainers(queue);
    await drainsRunOn(first.child.pid!);
    receiver = await startReceiver();
    const rx = receiver;
    // The first attempt hangs (the worker dies holding it); later attempts succeed.
    let hung = false;
    rx.answer = () => (hung ? 200 : ((hung = true), 'hang'));
    const d = await driveClient(api);
    expect((await d.call('POST', '/v0/webhooks', { json: { url: rx.url } })).status).toBe(201);
    for (const p of ['a', 'b', 'c']) await d.put(`kill/${p}.md`, p);
    await rx.until((r) => r.length >= 1, 120_000);
    first.child.kill('SIGKILL');
    await first.exited;

    startWorker(2);
    await rx.until((r) => new Set(r.map((x) => x.body.seq)).size >= 3, 120_000);
    const seqs = rx.received.map((r) => r.body.seq as number);
    expect(seqs.slice(0, 2)).toEqual([1, 1]);
    expect(rx.received[0]!.headers['x-drive-event-id']).toBe(rx.received[1]!.headers['x-drive-event-id']);
    expect(seqs.slice(1)).toEqual([1, 2, 3]);
  }, 240_000);
});
