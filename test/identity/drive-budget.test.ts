import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintApiKey } from '../../src/identity/api-keys.js';
import type { TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { startIdentityApi } from './helpers.js';

/** Spec 8: the write budget is per token and per drive, so more keys on one drive add no budget. */
let api: TestApi;
beforeAll(async () => {
  api = await startIdentityApi({ WRITE_BUDGET_PER_HOUR: '3', WRITE_BUDGET_PER_DRIVE_PER_HOUR: '5' });
});
afterAll(async () => api?.close());

const del = (auth: Record<string, string>) =>
  fetch(`${api.url}/v0/artifacts/notes/a.md`, { method: 'DELETE', headers: auth });
const remaining = (res: Response) => [
  Number(res.headers.get('x-ratelimit-limit')),
  Number(res.headers.get('x-ratelimit-remaining')),
];

describe('per-drive write budget', () => {
  it('N keys on one drive share the drive budget; the tighter budget drives the headers', async () => {
    const tenant = await createTenant(api.ctx);
    const second = {
      authorization: `Bearer ${(await mintApiKey(api.ctx.orm.em.fork(), tenant.driveId, 'second')).key}`,
    };
    const third = { authorization: `Bearer ${(await mintApiKey(api.ctx.orm.em.fork(), tenant.driveId, 'third')).key}` };

    const first = [await del(tenant.auth), await del(tenant.auth), await del(tenant.auth)];
    expect(first.map((r) => r.status).includes(429)).toBe(false);
    expect(remaining(first[2])).toEqual([3, 0]); // the key's budget binds
    expect((await del(tenant.auth)).status).toBe(429);

    const b1 = await del(second);
    expect(b1.status).not.toBe(429);
    expect(remaining(b1)).toEqual([5, 1]); // now the drive's budget binds: 4 of 5 spent
    expect((await del(second)).status).not.toBe(429);
    const refused = await del(second);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await refused.json()).detail.error).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringContaining('for this drive'),
    });
    // A third key has its own token budget left but the drive has none.
    expect((await del(third)).status).toBe(429);

    // Refused writes were not counted: the drive shows exactly its budget.
    const usage = await (await fetch(`${api.url}/v0/drives/me/usage`, { headers: third })).json();
    expect(usage.writes).toMatchObject({ used: 5, limit: 5 });
  });

  it('large-upload begin is free while budget is left and 429 once the drive budget is spent (spec 4.7)', async () => {
    const tenant = await createTenant(api.ctx);
    const begin = () =>
      fetch(`${api.url}/v0/uploads`, {
        method: 'POST',
        headers: { ...tenant.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ path: 'big/file.bin', size_bytes: 10 }),
      });
    const free = await begin();
    expect(free.status).not.toBe(429);
    expect(remaining(free)).toEqual([3, 3]); // begin charged nothing
    const other = { authorization: `Bearer ${(await mintApiKey(api.ctx.orm.em.fork(), tenant.driveId, 'other')).key}` };
    for (let i = 0; i < 3; i++) await del(tenant.auth);
    for (let i = 0; i < 2; i++) await del(other);
    const refused = await begin();
    expect(refused.status).toBe(429);
    expect((await refused.json()).detail.error.code).toBe('RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
