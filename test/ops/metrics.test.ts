import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { driveClient } from '../artifacts/client.js';
import { makeProject } from '../projects/helpers.js';
import { startReceiver } from '../feed/receiver.js';
import { scrapeWorker, series, total, until } from './prom.js';

/**
 * Issue 42: the API's GET /metrics (operator token only) and the worker's own endpoint (WORKER_METRICS_PORT, from
 * TEST_PORT_BASE in test/stack-env.ts), against the real stack: a write, a compile and a webhook delivery move the
 * counters, and the lag gauges come back to zero once the work is done.
 */
const OPS_TOKEN = 'ops-token-for-the-metrics-suite-0123456789';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ OPS_TOKEN });
});
afterAll(async () => api?.close());

const scrape = async () => {
  const res = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${OPS_TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
};

describe('GET /metrics is for the operator token only', () => {
  it('refuses no credential, a wrong token and a drive API key with 401 UNAUTHENTICATED', async () => {
    const d = await driveClient(api);
    for (const headers of [{}, { authorization: 'Bearer not-the-ops-token' }, d.auth]) {
      const res = await fetch(`${api.url}/metrics`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect((await res.json()).detail.error.code).toBe('UNAUTHENTICATED');
    }
  });

  it('an API without OPS_TOKEN refuses everyone', async () => {
    const bare = await startTestApi({ OPS_TOKEN: '' });
    try {
      const res = await fetch(`${bare.url}/metrics`, { headers: { authorization: `Bearer ${OPS_TOKEN}` } });
      expect(res.status).toBe(401);
    } finally {
      await bare.close();
    }
  });
});

describe('the counters and gauges follow the work', () => {
  it('a write, a compile and a webhook delivery move the counters; the lag gauges return to zero', async () => {
    const before = { api: await scrape(), worker: await scrapeWorker() };
    const moved = (text: string, prior: string, name: string, where: Record<string, string>) =>
      total(text, name, where) - total(prior, name, where);

    const d = await driveClient(api);
    const rx = await startReceiver();
    const hook = await d.call('POST', '/v0/webhooks', { json: { url: rx.url } });
    expect(hook.status).toBe(201);
    expect((await d.put('ops/ledger.md', 'Wombat ledger for the metrics suite')).status).toBe(200);
    const fld = await makeProject(d, 'opsdoc', { 'main.typ': '= Numbat operations\n' });
    await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.typ' } });
    const job = await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { options: { wait: true } } });
    expect(job.json).toMatchObject({ status: 'succeeded', engine: 'typst' });
    await rx.until((r) => r.some((x) => x.body.action === 'artifact.created'));
    await until(
      'the write is findable',
      async () => (await d.get('/v0/search?q=wombat')).json.items as unknown[],
      (items) => items.length > 0,
    );

    // The stack's worker counts what it did: the indexing, the delivery, the compile's end. Counters are per process:
    // while test/feed/delivery-workers.test.ts has moved the shared webhook drainers to workers of its own (which
    // serve no metrics), a delivery is counted there, so a fresh write asks for another delivery every few seconds.
    let nudged = Date.now();
    const worker = await until(
      'the worker counters',
      async () => {
        const t = await scrapeWorker();
        if (
          !moved(t, before.worker, 'drive_webhook_deliveries_total', { outcome: 'delivered' }) &&
          nudged < Date.now() - 5000
        ) {
          nudged = Date.now();
          await d.put(`ops/nudge-${nudged}.md`, 'another event to deliver');
        }
        return t;
      },
      (t) =>
        moved(t, before.worker, 'drive_outbox_requests_total', { topic: 'search', result: 'done' }) >= 1 &&
        moved(t, before.worker, 'drive_webhook_deliveries_total', { outcome: 'delivered' }) >= 1 &&
        moved(t, before.worker, 'drive_compile_jobs_ended_total', { engine: 'typst', state: 'succeeded' }) >= 1,
      180_000,
    );
    // Write to findable, timed per request.
    expect(
      moved(worker, before.worker, 'drive_outbox_settle_delay_seconds_count', { topic: 'search' }),
    ).toBeGreaterThan(0);
    expect(
      moved(worker, before.worker, 'drive_compile_job_duration_seconds_count', { engine: 'typst' }),
    ).toBeGreaterThan(0);
    // The Temporal SDK's runtime metrics come through the same endpoint, and the worker's pool.
    expect(worker).toMatch(/^temporal_\w+/m);
    expect(series(worker, 'drive_pg_pool_connections', { state: 'max' })[0]?.value).toBeGreaterThan(0);

    // The API counts requests by route template and status.
    const after = await scrape();
    const put = { method: 'PUT', route: '/v0/artifacts/*path', status: '200' };
    expect(moved(after, before.api, 'drive_http_requests_total', put)).toBeGreaterThanOrEqual(2);
    expect(moved(after, before.api, 'drive_http_request_duration_seconds_count', put)).toBeGreaterThanOrEqual(2);
    const compile = { method: 'POST', route: '/v0/projects/:fld_id/jobs', status: '200' };
    expect(moved(after, before.api, 'drive_http_requests_total', compile)).toBe(1);

    // Once the work is done each lag gauge reads zero (the database-backed gauges are read at each scrape). Suites
    // running beside this one share the stack, so each gauge has to be seen at zero once, not all at one scrape; and
    // a webhook gauge already held up by another suite's receivers before this test began (its own slow or vanished
    // receivers) counts as settled once it is back to that level: nothing of this test's is left in it.
    const lag: [string, Record<string, string>][] = [
      ['drive_outbox_oldest_seconds', { topic: 'search' }],
      ['drive_outbox_depth', { topic: 'search' }],
      ['drive_webhook_backlog', {}],
      ['drive_webhook_overdue_seconds', {}],
    ];
    const startedAt = Date.now();
    const baseline = new Map(lag.map(([name, where]) => [name, series(before.api, name, where)[0]?.value ?? 0]));
    const backToBaseline = (name: string, value: number) =>
      name === 'drive_webhook_backlog'
        ? value <= baseline.get(name)!
        : name === 'drive_webhook_overdue_seconds' &&
          baseline.get(name)! > 0 &&
          value >= baseline.get(name)! + (Date.now() - startedAt) / 1000 - 5;
    const atZero = new Set<string>();
    const settled = await until(
      'each lag gauge at zero',
      scrape,
      (t) => {
        for (const [name, where] of lag) {
          const value = series(t, name, where)[0]?.value;
          if (value === 0 || (value !== undefined && name.startsWith('drive_webhook') && backToBaseline(name, value)))
            atZero.add(name);
        }
        return atZero.size === lag.length;
      },
      120_000,
      (t) => lag.filter(([name]) => !atZero.has(name)).map(([name, where]) => series(t, name, where)),
    );
    expect(series(settled, 'drive_compile_jobs_open').map((s) => s.labels.state)).toEqual(['queued', 'running']);
    for (const c of ['outbox', 'webhooks', 'compile', 'graphs'])
      expect(series(settled, 'drive_metrics_collector_up', { collector: c })[0]?.value).toBe(1);
    expect(series(settled, 'drive_outbox_depth').map((s) => s.labels.topic)).toEqual(
      expect.arrayContaining(['search', 'compile']),
    );
    expect(series(settled, 'drive_pg_pool_connections', { state: 'in_use' })).toHaveLength(1);

    // Counts only: no drive, artifact, folder or job id in any label.
    for (const text of [settled, worker]) {
      expect(text).not.toMatch(/\b(drv|art|fld|job|whk|dlv)_[0-9A-Z]{10,}/);
      for (const id of [d.driveId, fld, job.json.job_id, hook.json.webhook_id]) expect(text).not.toContain(id);
    }

    await d.call('DELETE', `/v0/webhooks/${hook.json.webhook_id}`);
    await rx.close();
  }, 420_000);
});
