import { afterAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { startTestApi } from '../helpers/api.js';
import { driveClient, sqlOn, useTestApi, type DriveClient } from '../artifacts/client.js';
import { startReceiver, verifies, type Receiver } from './receiver.js';

let api: TestApi;
useTestApi({}, (a) => {
  api = a;
});
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});

async function setup(body: Record<string, unknown> = {}) {
  const d = await driveClient(api);
  const rx = await startReceiver();
  receivers.push(rx);
  const created = await d.call('POST', '/v0/webhooks', { json: { url: rx.url, ...body } });
  expect(created.status).toBe(201);
  return { d, rx, hook: created.json };
}
/** Polls the deliveries page until `done` holds (an attempt is recorded just after the receiver answered it). */
async function deliveriesWhen(d: DriveClient, webhookId: string, done: (log: any) => boolean) {
  for (let i = 0; ; i++) {
    const log = (await d.get(`/v0/webhooks/${webhookId}/deliveries`)).json;
    if (done(log) || i >= 1200) return log;
    await new Promise((r) => setTimeout(r, 100));
  }
}
const eventIds = (rx: Receiver) => rx.received.map((r) => String(r.headers['x-drive-event-id']));
const seqs = (rx: Receiver) => rx.received.map((r) => r.body.seq as number);
/**
 * Seqs in order of first arrival, after checking that arrivals never go back: delivery is at least once, and a
 * worker killed between a POST and its record (test/feed/delivery-workers.test.ts runs beside this file) sends that
 * event again, never an earlier one.
 */
const firstArrivals = (rx: Receiver) => {
  const all = seqs(rx);
  for (let i = 1; i < all.length; i++) expect(all[i]).toBeGreaterThanOrEqual(all[i - 1]!);
  return [...new Set(all)];
};

describe('webhooks: registration', () => {
  it('creates with a secret shown once; lists without it', async () => {
    const { d, rx, hook } = await setup({ actions: ['artifact.created'], prefix: 'docs/' });
    expect(hook).toMatchObject({ url: rx.url, actions: ['artifact.created'], prefix: 'docs/', state: 'active' });
    expect(hook.webhook_id).toMatch(/^whk_/);
    expect(hook.secret).toMatch(/^whsec_/);
    const list = (await d.get('/v0/webhooks')).json;
    expect(list.items).toEqual([{ ...hook, secret: undefined }].map(({ secret: _, ...w }) => w));
  });

  it('refuses link-local, metadata, private and credential-bearing URLs with 400 WEBHOOK_URL_REFUSED', async () => {
    const d = await driveClient(api);
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]/hook',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://[::ffff:169.254.169.254]/',
      'http://10.0.0.7/hook',
      'http://192.168.1.1/hook',
      'http://[fd00:ec2::254]/',
      'http://user:pw@example.com/hook',
      'ftp://example.com/hook',
    ]) {
      const r = await d.call('POST', '/v0/webhooks', { json: { url } });
      expect([url, r.status, r.code]).toEqual([url, 400, 'WEBHOOK_URL_REFUSED']);
    }
  });

  it('refuses loopback unless WEBHOOK_ALLOW_LOOPBACK=true', async () => {
    const strict = await startTestApi({ WEBHOOK_ALLOW_LOOPBACK: 'false' });
    try {
      const d = await driveClient(strict);
      for (const url of ['http://127.0.0.1:9/hook', 'http://localhost:9/hook', 'http://[::1]:9/hook']) {
        const r = await d.call('POST', '/v0/webhooks', { json: { url } });
        expect([url, r.status, r.code]).toEqual([url, 400, 'WEBHOOK_URL_REFUSED']);
      }
    } finally {
      await strict.close();
    }
  });

  it('answers 404 WEBHOOK_NOT_FOUND for another drive’s webhook', async () => {
    const { hook } = await setup();
    const other = await driveClient(api);
    for (const [method, path] of [
      ['DELETE', ''],
      ['POST', '/rotate'],
      ['GET', '/deliveries'],
    ] as const) {
      const r = await other.call(method, `/v0/webhooks/${hook.webhook_id}${path}`);
      expect([r.status, r.code]).toEqual([404, 'WEBHOOK_NOT_FOUND']);
    }
  });
});

// Generous: while test/feed/delivery-workers.test.ts kills a worker, every webhook waits for the retry (~20 s).
describe('webhooks: delivery', { timeout: 180_000 }, () => {
  it('delivers three writes in seq order, signed, with the documented headers', async () => {
    const { d, rx, hook } = await setup();
    for (const p of ['a', 'b', 'c']) await d.put(`three/${p}.md`, p);
    await rx.until((r) => new Set(r.map((x) => x.body.seq)).size >= 3);
    const events = (await d.events('?after=0')).slice(0, 3);
    expect(firstArrivals(rx)).toEqual([1, 2, 3]);
    for (const r of rx.received) expect(r.body).toEqual(events[r.body.seq - 1]);
    for (const r of rx.received) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-drive-webhook-id']).toBe(hook.webhook_id);
      expect(r.headers['x-drive-event-id']).toBe(r.body.id);
      expect(String(r.headers['x-drive-delivery-id'])).toMatch(/^dlv_/);
      expect(Math.abs(Number(r.headers['x-drive-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
      expect(String(r.headers['x-drive-signature'])).toMatch(/^v1=[0-9a-f]{64}$/);
      expect(verifies(r, hook.secret)).toBe(true);
      expect(verifies(r, 'whsec_wrong')).toBe(false);
    }
  });

  it('after a rotation signs with both secrets, and the deliveries log shows the attempts', async () => {
    const { d, rx, hook } = await setup();
    const rotated = await d.call('POST', `/v0/webhooks/${hook.webhook_id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).not.toBe(hook.secret);
    expect(rotated.json.previous_secret_expires_at).not.toBeNull();
    await d.put('rot/a.md', 'a');
    const [r] = await rx.until((x) => x.length >= 1);
    const values = String(r!.headers['x-drive-signature']).split(',');
    expect(values).toHaveLength(2);
    expect(verifies({ ...r!, headers: { ...r!.headers, 'x-drive-signature': values[0] } }, rotated.json.secret)).toBe(
      true,
    );
    expect(verifies({ ...r!, headers: { ...r!.headers, 'x-drive-signature': values[1] } }, hook.secret)).toBe(true);
    const log = await deliveriesWhen(d, hook.webhook_id, (l) => l.pending === 0);
    expect(log.items[0]).toMatchObject({ seq: 1, attempt: 1, outcome: 'delivered', status_code: 200, error: null });
    expect(rx.received.map((x) => x.headers['x-drive-delivery-id'])).toContain(log.items[0].delivery_id);
    expect(log).toMatchObject({ pending: 0, next_seq: null });
  });

  it('retries a 500 with the same event id, and sends the next event only after it', async () => {
    const { d, rx, hook } = await setup();
    let failed = false;
    rx.answer = (r) => (r.body.seq === 1 && !failed ? ((failed = true), 500) : 200);
    await d.put('retry/a.md', 'a');
    await d.put('retry/b.md', 'b');
    await rx.until((r) => r.some((x) => x.body.seq === 2));
    expect(firstArrivals(rx)).toEqual([1, 2]);
    expect(seqs(rx).slice(0, 2)).toEqual([1, 1]);
    expect(eventIds(rx)[0]).toBe(eventIds(rx)[1]);
    expect(rx.received[0]!.headers['x-drive-delivery-id']).not.toBe(rx.received[1]!.headers['x-drive-delivery-id']);
    const log = await deliveriesWhen(d, hook.webhook_id, (l) => l.pending === 0);
    const attempts = log.items.map((i: any) => [i.seq, i.attempt, i.outcome, i.status_code]);
    expect(attempts.at(-1)).toEqual([1, 1, 'failed', 500]);
    expect(attempts).toContainEqual([1, 2, 'delivered', 200]);
    expect(attempts[0]).toEqual([2, 1, 'delivered', 200]);
  });

  it('a deleted webhook receives nothing more', async () => {
    const { d, rx, hook } = await setup();
    const sentinel = await startReceiver();
    receivers.push(sentinel);
    expect((await d.call('POST', '/v0/webhooks', { json: { url: sentinel.url } })).status).toBe(201);
    await d.put('del/a.md', 'a');
    await rx.until((r) => r.length >= 1);
    expect((await d.call('DELETE', `/v0/webhooks/${hook.webhook_id}`)).json).toEqual({
      ok: true,
      webhook_id: hook.webhook_id,
    });
    await d.put('del/b.md', 'b');
    await d.put('del/c.md', 'c');
    // The other webhook of the drive got both later events: the deleted one would have by now.
    await sentinel.until((r) => new Set(r.map((x) => x.body.seq)).size >= 3);
    expect(firstArrivals(rx)).toEqual([1]);
    expect((await d.get('/v0/webhooks')).json.items.map((w: any) => w.webhook_id)).not.toContain(hook.webhook_id);
  });

  it('hears only its actions and prefix', async () => {
    const { d, rx } = await setup({ actions: ['artifact.updated'], prefix: 'keep/' });
    await d.put('keep/a.md', '1');
    await d.put('skip/a.md', '1');
    await d.put('skip/a.md', '2');
    await d.put('keep/a.md', '2');
    await rx.until((r) => r.length >= 1);
    expect(firstArrivals(rx)).toEqual([4]);
    expect(rx.received[0]!.body).toMatchObject({ action: 'artifact.updated', metadata: { path: 'keep/a.md' } });
  });

  it('sends no more than the per-drive hourly budget; the rest waits in order, other drives unaffected', async () => {
    const { d, rx, hook } = await setup();
    // All but two of this drive's deliveries this hour (and the next, should the hour turn) are spent already.
    const limit = api.ctx.config.webhooks.deliveriesPerDrivePerHour;
    await sqlOn(
      api,
      `insert into webhook_budget (drive_id, window_start, used)
       select ?, date_trunc('hour', now()) + make_interval(hours => h), ? from generate_series(0, 1) h`,
      [d.driveId, limit - 2],
    );
    for (const p of ['a', 'b', 'c', 'd']) await d.put(`budget/${p}.md`, p);
    await rx.until((r) => r.length >= 2);
    const log = await deliveriesWhen(d, hook.webhook_id, (l) => l.pending === 2);
    expect(log).toMatchObject({ pending: 2, next_seq: 3 });
    const other = await setup();
    await other.d.put('budget/x.md', 'x');
    await other.rx.until((r) => r.length >= 1);
    expect(firstArrivals(rx)).toEqual([1, 2]);
  });

  it('marks a webhook failing after the give-up time, and a replay from a seq delivers again', async () => {
    const { d, rx, hook } = await setup();
    rx.answer = () => 500;
    await d.put('fail/a.md', 'a');
    await d.put('fail/b.md', 'b');
    const log = await deliveriesWhen(d, hook.webhook_id, (l) => l.webhook.state === 'failing');
    expect(log.webhook.state).toBe('failing');
    expect(log.items[0]).toMatchObject({ seq: 1, outcome: 'gave_up', status_code: 500 });
    expect(new Set(seqs(rx))).toEqual(new Set([1]));
    expect(log).toMatchObject({ pending: 2, next_seq: 1 });

    rx.answer = () => 200;
    const replay = await d.call('POST', `/v0/webhooks/${hook.webhook_id}/replay`, { json: { after: 1 } });
    expect(replay.json).toMatchObject({ webhook: { state: 'active', failing_since: null }, queued: 1 });
    await rx.until((r) => r.some((x) => x.body.seq === 2));
    expect(firstArrivals(rx)).toEqual([1, 2]);
    expect((await deliveriesWhen(d, hook.webhook_id, (l) => l.pending === 0)).pending).toBe(0);
  });
});
