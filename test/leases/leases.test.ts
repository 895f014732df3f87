import { afterAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { driveClient, sqlOn, useTestApi, type DriveClient } from '../artifacts/client.js';
import { mcpClient, type McpSession } from '../mcp/helpers.js';

/**
 * Leases with fencing tokens (issue 56) on the real stack: racers, disjoint globs, every write door refusing a write
 * under another's lease (423) and a lapsed holder's write (409 FENCE_STALE), exact expiry by the database clock,
 * shared leases, and tenant isolation.
 */
let api: TestApi;
const sessions: McpSession[] = [];
useTestApi({}, (a) => {
  api = a;
});
afterAll(async () => {
  for (const s of sessions) await s.close();
});

const lease = (d: DriveClient, body: Record<string, unknown>) =>
  d.call('POST', '/v0/leases', { json: { mode: 'exclusive', ttl_s: 60, ...body } });
const fenced = (fence: number) => ({ 'x-drive-fence': String(fence) });
/** Makes a lease lapse now, as the clock would, without waiting for it. */
const lapse = (leaseId: string) =>
  sqlOn(api, `update leases set expires_at = clock_timestamp() - interval '1 millisecond' where id = ?`, [leaseId]);

describe('leases', () => {
  it('of N racers on overlapping globs exactly one wins; disjoint globs all win; fences only grow', async () => {
    const d = await driveClient(api);
    // Every glob covers src/app/main.ts, so any two overlap whichever wins first (src/lib/** and src/app/main.ts, say,
    // would not, and two racers could rightly both win).
    const globs = [
      'src/**',
      'src/**/*.ts',
      'src/app/*.ts',
      'src/app/main.ts',
      'src/*/main.ts',
      'src/app/**',
      'src/?pp/**',
    ];
    const raced = await Promise.all(globs.map((glob) => lease(d, { glob })));
    expect(raced.filter((r) => r.status === 201)).toHaveLength(1);
    const losers = raced.filter((r) => r.status !== 201);
    expect(losers.every((r) => r.status === 409 && r.code === 'LEASE_CONFLICT')).toBe(true);
    expect(losers[0]!.json.detail.error.conflicts[0]).toMatchObject({
      mode: 'exclusive',
      holder: { credential: 'test' },
    });
    expect(losers[0]!.json.detail.error.conflicts[0].expires_at).toMatch(/Z$/);

    const disjoint = await Promise.all(
      ['docs/**/*.md', 'tests/**', 'notes/*.txt', 'assets/img/*.png', 'docs/**/*.pdf'].map((glob) =>
        lease(d, { glob }),
      ),
    );
    expect(disjoint.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const fences = [...raced.filter((r) => r.status === 201), ...disjoint].map((r) => r.json.fence as number);
    expect(new Set(fences).size).toBe(fences.length);
    expect(Math.min(...disjoint.map((r) => r.json.fence))).toBeGreaterThan(0);
  });

  it('a write under another lease is 423 LOCKED at every REST write; the fence lets it in', async () => {
    const d = await driveClient(api);
    expect((await d.put('box/a.md', 'one')).status).toBe(200);
    expect((await d.put('box/b.md', 'two')).status).toBe(200);
    expect((await d.put('free.md', 'free')).status).toBe(200);
    const held = await lease(d, { prefix: 'box/', note: 'refactor' });
    expect(held.status).toBe(201);
    expect(held.json).toMatchObject({ mode: 'exclusive', covers: { prefix: 'box/', paths: [], glob: null } });
    expect(held.json.lease_id).toMatch(/^lse_/);
    const fence = held.json.fence as number;
    const artOf = async (p: string) => (await d.get(`/v0/artifacts/${p}/meta`)).json.art_id as string;
    const a = await artOf('box/a.md');

    const locked = await d.put('box/a.md', 'sneaky');
    expect(locked.status).toBe(423);
    expect(locked.json.detail.error).toMatchObject({ code: 'LOCKED', lease_id: held.json.lease_id, path: 'box/a.md' });
    expect(locked.json.detail.error.expires_at).toBe(held.json.expires_at);
    expect(locked.json.detail.error.fence).toBeUndefined();
    expect((await d.call('DELETE', '/v0/artifacts/box/b.md')).status).toBe(423);
    expect((await d.call('PATCH', `/v0/artifacts/${a}`, { json: { path: 'out.md' } })).status).toBe(423);
    const free = await artOf('free.md');
    expect((await d.call('PATCH', `/v0/artifacts/${free}`, { json: { path: 'box/free.md' } })).status).toBe(423);
    expect((await d.call('POST', `/v0/artifacts/${free}/copy`, { json: { path: 'box/c.md' } })).status).toBe(423);
    expect((await d.call('POST', '/v0/folders/box/sub')).status).toBe(423);
    expect((await d.call('POST', '/v0/folders/loose')).status).toBe(201);
    expect((await d.call('POST', '/v0/folders/loose/move', { json: { path: 'box/loose' } })).status).toBe(423);
    expect((await d.get('/v0/folders/loose')).status).toBe(200);
    expect((await d.put('box/a.md', 'wrong fence', fenced(fence + 1000))).status).toBe(423);
    // Nothing of the refused writes landed.
    expect((await d.get(`/v0/artifacts/${a}`)).json.version_number).toBe(1);
    expect((await d.get('/v0/artifacts/box/b.md/meta')).status).toBe(200);

    expect((await d.put('free.md', 'not leased')).status).toBe(200);
    expect((await d.put('box/a.md', 'by the holder', fenced(fence))).status).toBe(200);
    expect((await d.call('DELETE', '/v0/artifacts/box/b.md', { headers: fenced(fence) })).status).toBe(200);
    expect((await d.get(`/v0/leases?path=box/a.md`)).json.items.map((l: any) => l.lease_id)).toEqual([
      held.json.lease_id,
    ]);
    expect((await d.get(`/v0/leases?path=box`)).json.items).toHaveLength(1);
    expect((await d.get(`/v0/leases?path=free.md`)).json.items).toHaveLength(0);
    expect((await d.get(`/v0/leases`)).json.items[0].fence).toBeUndefined();

    const released = await d.call('DELETE', `/v0/leases/${held.json.lease_id}`);
    expect(released.status).toBe(200);
    expect(released.json.live).toBe(false);
    expect((await d.put('box/a.md', 'after release')).status).toBe(200);
  });

  it('a revert of a run that touched a leased path is refused too', async () => {
    const d = await driveClient(api);
    expect((await d.put('r/x.md', 'v1', { 'x-drive-run-id': 'agent-r' })).status).toBe(200);
    const held = await lease(d, { paths: ['r/x.md'] });
    expect(held.status).toBe(201);
    const revert = await d.call('POST', '/v0/runs/agent-r/revert', { json: {} });
    expect(revert.status).toBe(423);
    expect(revert.code).toBe('LOCKED');
    expect((await d.get('/v0/artifacts/r/x.md/meta')).status).toBe(200);
  });

  it('a lapsed holder cannot land: 409 FENCE_STALE once another took the path; expiry is exact', async () => {
    const d = await driveClient(api);
    expect((await d.put('doc.md', 'base')).status).toBe(200);
    const first = await lease(d, { paths: ['doc.md'], ttl_s: 5 });
    expect(first.status).toBe(201);
    // Live until expires_at by the database's clock, and not after.
    const [live] = await sqlOn(
      api,
      `select (expires_at > clock_timestamp()) as live, extract(epoch from expires_at - created_at) as ttl from leases
       where id = ?`,
      [first.json.lease_id],
    );
    expect(live).toMatchObject({ live: true });
    expect(Number(live.ttl)).toBeGreaterThanOrEqual(5);
    expect(Number(live.ttl)).toBeLessThan(6);
    expect((await lease(d, { paths: ['doc.md'] })).status).toBe(409);
    await lapse(first.json.lease_id);
    expect((await d.call('POST', `/v0/leases/${first.json.lease_id}/renew`, { json: { ttl_s: 30 } })).code).toBe(
      'LEASE_EXPIRED',
    );
    const second = await lease(d, { paths: ['doc.md'] });
    expect(second.status).toBe(201);
    expect(second.json.fence).toBeGreaterThan(first.json.fence);

    const stale = await d.put('doc.md', 'late write', fenced(first.json.fence));
    expect(stale.status).toBe(409);
    expect(stale.json.detail.error).toMatchObject({ code: 'FENCE_STALE', newest_fence: second.json.fence });
    // Even after the newer lease ends, the older fence stays refused on that path.
    expect((await d.call('DELETE', `/v0/leases/${second.json.lease_id}`)).status).toBe(200);
    expect((await d.put('doc.md', 'late write', fenced(first.json.fence))).code).toBe('FENCE_STALE');
    expect((await d.put('doc.md', 'no lease now')).status).toBe(200);
    expect((await d.get('/v0/artifacts/doc.md/meta')).json.version_number).toBe(2);
  });

  it('renew keeps the fence and moves the expiry; shared leases allow each other and no writes', async () => {
    const d = await driveClient(api);
    const held = await lease(d, { paths: ['r.md'], ttl_s: 5 });
    const renewed = await d.call('POST', `/v0/leases/${held.json.lease_id}/renew`, { json: { ttl_s: 600 } });
    expect(renewed.status).toBe(200);
    expect(renewed.json.fence).toBe(held.json.fence);
    expect(Date.parse(renewed.json.expires_at)).toBeGreaterThan(Date.parse(held.json.expires_at) + 500_000);

    const s1 = await lease(d, { glob: 'shared/*.md', mode: 'shared' });
    const s2 = await lease(d, { paths: ['shared/a.md'], mode: 'shared' });
    expect([s1.status, s2.status]).toEqual([201, 201]);
    expect((await lease(d, { paths: ['shared/a.md'] })).code).toBe('LEASE_CONFLICT');
    const write = await d.put('shared/a.md', 'x', fenced(s2.json.fence));
    expect(write.status).toBe(423);
    expect(write.json.detail.error.mode).toBe('shared');
    expect((await d.put('shared/b.txt', 'not covered')).status).toBe(200);
  });

  it('validates input and isolates drives', async () => {
    const d = await driveClient(api);
    const other = await driveClient(api);
    expect((await lease(d, {})).code).toBe('INVALID_LEASE');
    expect((await lease(d, { glob: 'a/{b,c}/*' })).code).toBe('INVALID_LEASE');
    expect((await lease(d, { glob: '*'.repeat(40) })).code).toBe('INVALID_LEASE');
    expect((await lease(d, { paths: ['a'], ttl_s: 4 })).status).toBe(422);
    expect((await lease(d, { paths: ['a'], ttl_s: 3601 })).status).toBe(422);
    expect((await d.put('x.md', 'x', { 'x-drive-fence': 'abc' })).code).toBe('INVALID_FENCE');
    const mine = await lease(d, { paths: ['x.md'] });
    expect((await other.call('DELETE', `/v0/leases/${mine.json.lease_id}`)).status).toBe(404);
    expect((await other.call('POST', `/v0/leases/${mine.json.lease_id}/renew`, { json: { ttl_s: 9 } })).status).toBe(
      404,
    );
    expect((await other.get('/v0/leases')).json.items).toHaveLength(0);
    expect((await other.put('x.md', 'their own x')).status).toBe(200);
  });

  it('MCP: lease acquires, write tools refuse without the fence and pass with it, lookup shows the lease', async () => {
    const d = await driveClient(api);
    const s = await mcpClient(api, d.apiKey);
    sessions.push(s);
    await s.ok('upload', { path: 'm/plan.md', content: 'plan' });
    const held = await s.ok<{ lease_id: string; fence: number }>('lease', { paths: ['m/plan.md'], ttl_s: 60 });
    expect(held.fence).toBeGreaterThan(0);
    const refused = await s.fail('upload', { path: 'm/plan.md', content: 'unfenced' });
    expect(refused).toMatchObject({ code: 'LOCKED', status: 423, lease_id: held.lease_id });
    expect((await s.fail('delete', { ref: 'm/plan.md' })).code).toBe('LOCKED');
    expect((await s.fail('edit', { ref: 'm/plan.md', edits: [{ old_text: 'plan', new_text: 'x' }] })).code).toBe(
      'LOCKED',
    );
    await s.ok('upload', { path: 'm/plan.md', content: 'fenced', fence: held.fence });
    const looked = await s.ok<{ leases: { lease_id: string }[] }>('lookup', { ref: 'm/plan.md' });
    expect(looked.leases.map((l) => l.lease_id)).toEqual([held.lease_id]);
    expect(looked._text).toContain('leased (exclusive)');
    // REST's X-Drive-Fence reaches MCP too.
    const viaHeader = await mcpClient(api, d.apiKey, fenced(held.fence));
    sessions.push(viaHeader);
    await viaHeader.ok('upload', { path: 'm/plan.md', content: 'header fence' });
    await s.ok('lease', { action: 'release', lease_id: held.lease_id });
    await s.ok('upload', { path: 'm/plan.md', content: 'free again' });
    expect((await s.fail('lease', { action: 'renew' })).code).toBe('INVALID_LEASE');
  });
});
