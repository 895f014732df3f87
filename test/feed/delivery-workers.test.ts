import { afterAll, describe, expect, it } from 'vitest';
import { driveClient, useTestApi } from '../artifacts/client.js';
import type { TestApi } from '../helpers/api.js';
import { startReceiver, type Receiver } from './receiver.js';
import { webhookWorkers } from './webhook-workers.js';

/**
 * Delivery by workers of this suite's own (test/feed/webhook-workers.ts): one SIGKILLed while it
 * delivers. Every webhook of the stack waits for the retry meanwhile (about 20 s).
 */
let api: TestApi;
useTestApi({}, (a) => {
  api = a;
});
const workers = webhookWorkers(() => api, 'webhook-workers');
const receivers: Receiver[] = [];
afterAll(async () => {
  await workers.restore();
  for (const r of receivers) await r.close();
});

async function hooked() {
  const rx = await startReceiver();
  receivers.push(rx);
  const d = await driveClient(api);
  const created = await d.call('POST', '/v0/webhooks', { json: { url: rx.url } });
  expect(created.status).toBe(201);
  return { d, rx };
}

describe('a worker killed during a webhook delivery', () => {
  it('is a retry on the next worker: the same event again, then the rest in order, nothing lost', async () => {
    const first = await workers.start('killed', {}, true);
    const { d, rx } = await hooked();
    // The first attempt hangs (the worker dies holding it); later attempts succeed.
    let hung = false;
    rx.answer = () => (hung ? 200 : ((hung = true), 'hang'));
    for (const p of ['a', 'b', 'c']) await d.put(`kill/${p}.md`, p);
    await rx.until((r) => r.length >= 1, 120_000);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await workers.start('after-kill');
    await rx.until((r) => new Set(r.map((x) => x.body.seq)).size >= 3, 120_000);
    const seqs = rx.received.map((r) => r.body.seq as number);
    expect(seqs).toEqual([1, 1, 2, 3]);
    expect(rx.received[0]!.headers['x-drive-event-id']).toBe(rx.received[1]!.headers['x-drive-event-id']);
    await second.stop();
  }, 480_000);
});
