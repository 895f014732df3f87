import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { driveClient, useTestApi } from '../artifacts/client.js';
import { capWebhookQueues } from '../../src/feed/webhook-backlog.js';
import { suiteReceivers, type Receiver } from './receiver.js';

/** Issue 37, finding 1: a replay of a long history and a long failure keep a bounded queue, and lose nothing. */
let api: TestApi;
useTestApi({ WRITE_BUDGET_PER_HOUR: '10000', WRITE_BUDGET_PER_DRIVE_PER_HOUR: '10000' }, (a) => {
  api = a;
});
const receiver = suiteReceivers();
const queued = async (webhookId: string) =>
  Number(
    (
      await api.ctx.pool.query<{ n: string }>('select count(*) as n from webhook_outbox where webhook_id = $1', [
        webhookId,
      ])
    ).rows[0]!.n,
  );
const inOrder = (rx: Receiver) => {
  const all = rx.received.map((r) => r.body.seq as number);
  for (let i = 1; i < all.length; i++) expect(all[i]).toBeGreaterThanOrEqual(all[i - 1]!);
  return [...new Set(all)];
};

describe('bounded webhook backlog', { timeout: 240_000 }, () => {
  it('replay {"after": 0} over a 450-event history queues one page, then delivers all of it in order', async () => {
    const d = await driveClient(api);
    expect((await d.call('POST', '/v0/folders/old', { json: {} })).status).toBe(201);
    for (let i = 0; i < 150; i += 15)
      await Promise.all(Array.from({ length: 15 }, (_, j) => d.put(`old/f${i + j}.md`, `${i + j}`)));
    for (const [from, to] of [
      ['old', 'older'],
      ['older', 'old'],
    ])
      expect((await d.call('POST', `/v0/folders/${from}/move`, { json: { path: to } })).status).toBe(200);
    const events = (await d.events('?limit=1'))[0].seq as number;
    expect(events).toBeGreaterThanOrEqual(450);

    const rx = await receiver();
    const hook = (await d.call('POST', '/v0/webhooks', { json: { url: rx.url } })).json;
    const replay = await d.call('POST', `/v0/webhooks/${hook.webhook_id}/replay`, { json: { after: 0 } });
    expect(replay.status).toBe(200);
    expect(replay.json).toMatchObject({ queued: 200, more: true });
    expect(await queued(hook.webhook_id)).toBeLessThanOrEqual(200);
    // A write during the replay is delivered after the history, not before it.
    await d.put('during/replay.md', 'x');
    await rx.until((r) => new Set(r.map((x) => x.body.seq)).size >= events + 1, 200_000);
    expect(inOrder(rx)).toEqual(Array.from({ length: events + 1 }, (_, i) => i + 1));
  });

  it('a failing webhook keeps at most WEBHOOK_QUEUE_MAX rows; the rest follows from the cursor, in order', async () => {
    const d = await driveClient(api);
    const rx = await receiver();
    // The first attempt hangs (until the delivery timeout) while the queue grows behind it.
    let hold = true;
    rx.answer = () => (hold ? 'hang' : 200);
    const hook = (await d.call('POST', '/v0/webhooks', { json: { url: rx.url } })).json;
    for (let i = 0; i < 12; i++) await d.put(`cap/${i}.md`, `${i}`);
    await rx.until((r) => r.length >= 1);
    expect(await queued(hook.webhook_id)).toBe(12);
    // The cleanup run's cap, here with a cap of 5.
    expect(await capWebhookQueues(api.ctx.pool, 5)).toBeGreaterThanOrEqual(1);
    expect(await queued(hook.webhook_id)).toBe(5);
    hold = false;
    await d.put('cap/late.md', 'late');
    await rx.until((r) => new Set(r.map((x) => x.body.seq)).size >= 13, 200_000);
    expect(inOrder(rx)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
  });
});
