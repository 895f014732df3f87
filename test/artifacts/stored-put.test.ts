import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { driveClient, objectExistsIn, sqlOn, useTestApi } from './client.js';

let api: TestApi;
// Nothing kept inline: every PUT by path here is the one-statement write of bytes already in S3 (put_stored).
useTestApi({ INLINE_BLOB_MAX_BYTES: '0', STORAGE_QUOTA_BYTES: '1000' }, (a) => {
  api = a;
});

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('a PUT of bytes in object storage, in one statement', () => {
  it('parallel writers that all passed the early quota check: exactly what fits is accepted and counted', async () => {
    const q = await driveClient(api);
    const bodies = Array.from({ length: 16 }, (_, i) => `${i}`.padEnd(150, `${Math.random()}`));
    const results = await Promise.all(bodies.map((b, i) => q.put(`race/${i}`, b)));
    expect(results.map((r) => r.status).sort()).toEqual([...Array(6).fill(200), ...Array(10).fill(413)]);
    expect(results.find((r) => r.status === 413)?.code).toBe('STORAGE_QUOTA_EXCEEDED');
    const { storageUsedBytes } = await import('../../src/files/quota.js');
    expect(await storageUsedBytes(api.ctx.orm.em.fork(), q.driveId)).toBe(900);
    // Accepted: a version, an event and the bytes. Refused: no version references their bytes (the purge takes them).
    expect((await q.get('/v0/artifacts')).json.items).toHaveLength(6);
    expect(await q.events('?limit=100')).toHaveLength(6);
    for (const [i, r] of results.entries()) {
      const versions = await sqlOn(api, `select 1 from artifact_versions where hash = ?`, [sha256(bodies[i]!)]);
      expect(versions).toHaveLength(r.status === 200 ? 1 : 0);
      if (r.status === 200)
        expect((await q.get(`/v0/artifacts/${r.json.art_id}/download`)).bytes.toString()).toBe(bodies[i]);
    }
  });

  it('bytes that cannot fit are refused before the touch: 413, no blob row, nothing in S3', async () => {
    const q = await driveClient(api);
    await q.put('first', 'a'.repeat(400));
    const body = `${Math.random()}`.padEnd(700, 'b');
    const over = await q.put('second', body);
    expect([over.status, over.code]).toEqual([413, 'STORAGE_QUOTA_EXCEEDED']);
    expect(over.json.detail.error).toMatchObject({ used_bytes: 400, limit_bytes: 1000, requested_bytes: 700 });
    expect(await sqlOn(api, `select 1 from blobs where hash = ?`, [sha256(body)])).toHaveLength(0);
    expect(await objectExistsIn(api, sha256(body))).toBe(false);
  });

  it('overwrites with bytes already stored (no second object write) and creates with fresh ones', async () => {
    const q = await driveClient(api);
    // Unique bytes: suites share the database, and bytes another one keeps inline are never put in S3 here.
    const same = `same bytes ${Math.random()}`;
    const first = (await q.put('notes/a.txt', same)).json;
    expect(await objectExistsIn(api, first.hash)).toBe(true);
    await q.put('notes/b.txt', 'other bytes');
    const again = await q.put('notes/b.txt', same);
    expect([again.status, again.json.version_number, again.json.hash]).toEqual([200, 2, first.hash]);
    expect((await q.get(`/v0/artifacts/${again.json.art_id}/download`)).bytes.toString()).toBe(same);
    const actions = (await q.events('?limit=10')).map((e) => e.action).sort();
    expect(actions).toEqual(['artifact.created', 'artifact.created', 'artifact.updated']);
  });
});
