import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Drive, DriveError } from '../../packages/client/src/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';

/** The SDK's leases (drive.leases) and its `fence` option, which every request of that Drive then carries. */
let api: TestApi;
let apiKey: string;
beforeAll(async () => {
  api = await startTestApi();
  ({ apiKey } = await createTenant(api.ctx));
}, 120_000);
afterAll(async () => api?.close());

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (err: unknown) => (err instanceof DriveError ? { status: err.status, code: err.code } : { thrown: String(err) }),
  );

describe('drive.leases', () => {
  it('acquires, lists, renews and releases; only the Drive holding the fence writes under the lease', async () => {
    const drive = new Drive({ baseUrl: api.url, credential: { apiKey } });
    await drive.put('plan/todo.md', 'one\n');
    const lease = await drive.leases.acquire({ prefix: 'plan/', mode: 'exclusive', ttl_s: 60, note: 'sdk' });
    expect(lease).toMatchObject({ mode: 'exclusive', live: true, note: 'sdk' });
    expect(await refusal(drive.leases.acquire({ paths: ['plan/todo.md'], mode: 'exclusive', ttl_s: 30 }))).toEqual({
      status: 409,
      code: 'LEASE_CONFLICT',
    });
    expect((await drive.leases.list('plan/todo.md')).map((l) => l.lease_id)).toEqual([lease.lease_id]);

    expect(await refusal(drive.put('plan/todo.md', 'blind\n'))).toEqual({ status: 423, code: 'LOCKED' });
    const holder = new Drive({ baseUrl: api.url, credential: { apiKey }, fence: lease.fence });
    await holder.put('plan/todo.md', 'two\n');
    expect(await drive.text('plan/todo.md')).toBe('two\n');

    const renewed = await drive.leases.renew(lease.lease_id, 120);
    expect(Date.parse(renewed.expires_at)).toBeGreaterThan(Date.parse(lease.expires_at));
    expect((await drive.leases.release(lease.lease_id)).live).toBe(false);
    expect(await drive.leases.list('plan/todo.md')).toEqual([]);
    await drive.put('plan/todo.md', 'three\n');
    // A fence older than a lease granted since on the path is stale, even once that lease has ended.
    const next = await drive.leases.acquire({ paths: ['plan/todo.md'], mode: 'exclusive', ttl_s: 30 });
    expect(next.fence).toBeGreaterThan(lease.fence!);
    await drive.leases.release(next.lease_id);
    expect(await refusal(holder.put('plan/todo.md', 'late\n'))).toEqual({ status: 409, code: 'FENCE_STALE' });
    expect(await drive.text('plan/todo.md')).toBe('three\n');
  });
});
