import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { incrementUsage } from '../../src/platform/usage-counters.js';
import { UsageMeter } from '../../src/platform/usage-meter.js';
import { purgeEndedWindows } from '../../src/platform/rate-limits.js';
import { accessTokenFor, bearer, registerAnonymous, startIdentityApi } from './helpers.js';

let api: TestApi;
beforeAll(async () => {
  api = await startIdentityApi({ WRITE_BUDGET_PER_HOUR: '3' });
});
afterAll(async () => api?.close());

const write = (token: { authorization: string }, method = 'DELETE', path = '/v0/artifacts/notes/a.md') =>
  fetch(`${api.url}${path}`, { method, headers: token });

function headers(res: Response) {
  return {
    limit: Number(res.headers.get('x-ratelimit-limit')),
    remaining: Number(res.headers.get('x-ratelimit-remaining')),
    reset: Number(res.headers.get('x-ratelimit-reset')),
  };
}

describe('write budget and rate-limit headers', () => {
  it('every authenticated response carries the headers; writes spend the budget, reads do not', async () => {
    const tenant = await createTenant(api.ctx);
    const read = await fetch(`${api.url}/v0/drives/me`, { headers: tenant.auth });
    const h = headers(read);
    expect(h).toMatchObject({ limit: 3, remaining: 3 });
    const nextHour = Math.ceil(Date.now() / 3_600_000) * 3600;
    expect(h.reset).toBe(nextHour);

    for (const remaining of [2, 1, 0]) {
      const res = await write(tenant.auth);
      expect(res.status).not.toBe(429);
      expect(headers(res).remaining).toBe(remaining);
    }
    const refused = await write(tenant.auth, 'PUT');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(headers(refused)).toMatchObject({ limit: 3, remaining: 0 });
    expect((await refused.json()).detail.error.code).toBe('RATE_LIMITED');

    // Reads keep working and still carry the headers; with the budget spent, large-upload begin and commit are 429 too
    // (spec 4.7).
    const after = await fetch(`${api.url}/v0/drives/me`, { headers: tenant.auth });
    expect(after.status).toBe(200);
    expect(headers(after).remaining).toBe(0);
    expect((await write(tenant.auth, 'POST', '/v0/uploads')).status).toBe(429);
    expect((await write(tenant.auth, 'POST', '/v0/uploads/upl_x/commit')).status).toBe(429);
  });

  it('unauthenticated responses carry no budget headers', async () => {
    const res = await fetch(`${api.url}/v0/drives/me`);
    expect(res.status).toBe(401);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('all access tokens of one identity share its budget; another credential has its own', async () => {
    const reg = await registerAnonymous(api);
    for (let i = 0; i < 3; i++) await write(bearer(await accessTokenFor(api, reg.identity_assertion)));
    const fresh = await accessTokenFor(api, reg.identity_assertion);
    expect((await write(bearer(fresh))).status).toBe(429);
    const other = await registerAnonymous(api);
    expect((await write(bearer(await accessTokenFor(api, other.identity_assertion)))).status).not.toBe(429);
  });

  it('usage reports storage, writes this hour, and monthly reads, indexing ops and retrieval queries', async () => {
    const tenant = await createTenant(api.ctx);
    const em = api.ctx.orm.em.fork();
    const upload = await fetch(`${api.url}/v0/artifacts/notes/usage.bin`, {
      method: 'PUT',
      headers: tenant.auth,
      body: Buffer.alloc(12345, 7),
    });
    expect(upload.status).toBe(200);
    // The worker's indexing of the upload counts one indexing op (its meter writes once a second); wait for it in the
    // database.
    const indexingOps = async () =>
      Number(
        (
          await em
            .fork()
            .execute<{ n: number }[]>(
              `select coalesce(sum(count), 0) as n from usage_counters where drive_id = ? and kind = 'indexing_ops'`,
              [tenant.driveId],
            )
        )[0]!.n,
      );
    for (const end = Date.now() + 30_000; (await indexingOps()) < 1 && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 100));
    await incrementUsage(em, tenant.driveId, 'indexing_ops');
    await incrementUsage(em, tenant.driveId, 'retrieval_queries', 4);
    await write(tenant.auth);
    await write(tenant.auth);
    await fetch(`${api.url}/v0/drives/me`, { headers: tenant.auth });

    const res = await fetch(`${api.url}/v0/drives/me/usage`, { headers: tenant.auth });
    expect(res.status).toBe(200);
    const usage = await res.json();
    const month = new Date().toISOString().slice(0, 7);
    expect(usage).toMatchObject({
      drive_id: tenant.driveId,
      storage: { used: 12345, limit: 500 * 1024 * 1024 },
      writes: { used: 3, limit: 200 }, // the drive's budget (WRITE_BUDGET_PER_DRIVE_PER_HOUR)
      ops_this_month: {
        month,
        reads: { used: 2, limit: 0 }, // the overview read and this usage read
        indexing_ops: { used: 2, limit: 0 }, // the upload's indexing and one counted here
        retrieval_queries: { used: 4, limit: 0 },
      },
    });
  });

  it('the usage meter batches counts per drive and kind, flushes one drive alone, and drops counts of a purged drive', async () => {
    const [a, b] = [await createTenant(api.ctx), await createTenant(api.ctx)];
    const meter = new UsageMeter(api.ctx.orm, api.ctx.logger, 3_600_000);
    const counts = async (driveId: string) =>
      Object.fromEntries(
        (
          await api.ctx.orm.em
            .fork()
            .execute<{ kind: string; count: string }[]>(`select kind, count from usage_counters where drive_id = ?`, [
              driveId,
            ])
        ).map((r) => [r.kind, Number(r.count)]),
      );
    for (let i = 0; i < 3; i++) meter.count(a.driveId, 'retrieval_queries');
    meter.count(a.driveId);
    meter.count(b.driveId, 'indexing_ops');
    expect(await counts(a.driveId)).toEqual({});
    await meter.flush(a.driveId);
    expect(await counts(a.driveId)).toEqual({ retrieval_queries: 3, reads: 1 });
    expect(await counts(b.driveId)).toEqual({});
    await api.ctx.orm.em.fork().execute(`delete from drives where id = ?`, [b.driveId]);
    expect(meter.pendingCount).toBe(1);
    await meter.close();
    // Dropped, not kept to retry every second, and nothing written for the purged drive.
    expect(meter.pendingCount).toBe(0);
    expect(await counts(b.driveId)).toEqual({});
  });

  it("a drive's flush waits for counts an earlier flush is still writing (the usage report reads right after)", async () => {
    const tenant = await createTenant(api.ctx);
    const meter = new UsageMeter(api.ctx.orm, api.ctx.logger, 3_600_000);
    meter.count(tenant.driveId, 'indexing_ops');
    // The interval's flush takes the count and starts writing it; the report's flush of the drive comes next.
    const interval = meter.flush();
    await meter.flush(tenant.driveId);
    const rows = await api.ctx.orm.em
      .fork()
      .execute<{ count: string }[]>(`select count from usage_counters where drive_id = ? and kind = 'indexing_ops'`, [
        tenant.driveId,
      ]);
    expect(rows.map((r) => Number(r.count))).toEqual([1]);
    await interval;
    await meter.close();
  });

  it('the cleanup drops counters of ended windows and keeps the current one', async () => {
    const tenant = await createTenant(api.ctx);
    await write(tenant.auth);
    const em = api.ctx.orm.em.fork();
    await em.execute(
      `insert into rate_counters (bucket, window_start, drive_id, count) values (?, date_trunc('hour', now()) - interval '1 hour', ?, 5)`,
      [`write:old-${tenant.driveId}`, tenant.driveId],
    );
    expect(await purgeEndedWindows(em)).toBeGreaterThanOrEqual(1);
    const rows = await em.execute('select bucket from rate_counters where drive_id = ?', [tenant.driveId]);
    expect(rows.map((r) => r.bucket).sort()).toEqual([
      `drive-write:${tenant.driveId}`,
      expect.stringMatching(/^write:key_/),
    ]);
  });
});
