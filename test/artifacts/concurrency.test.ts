import { describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/files/purge.js';
import type { TestApi } from '../helpers/api.js';
import { ageBlobs, driveClient, objectExistsIn, sqlOn, uploadsRacePurge, useTestApi } from './client.js';

let api: TestApi;
// The object-store protocol of blobs: small files go there too when nothing is kept inline.
useTestApi({ INLINE_BLOB_MAX_BYTES: '0' }, (a) => {
  api = a;
});

const sql = (q: string, p: unknown[] = []) => sqlOn(api, q, p);
const objectExists = (hash: string) => objectExistsIn(api, hash);

describe('concurrency', () => {
  it('20 concurrent PUTs to one new path: one live artifact, 20 consecutive versions, none lost', async () => {
    const d = await driveClient(api);
    const bodies = Array.from({ length: 20 }, (_, i) => `body ${i}`);
    const results = await Promise.all(bodies.map((b) => d.put('race/one.txt', b, { 'x-drive-change-summary': b })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const ids = new Set(results.map((r) => r.json.art_id));
    expect(ids.size).toBe(1);
    expect(results.map((r) => r.json.version_number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const live = await sql(`select id from artifacts where drive_id = ? and path = 'race/one.txt'`, [d.driveId]);
    expect(live).toHaveLength(1);
    const versions = (await d.get(`/v0/artifacts/${[...ids][0]}/versions?limit=100`)).json.items;
    expect(versions.map((v: any) => v.version_number)).toEqual(Array.from({ length: 20 }, (_, i) => 20 - i));
    expect(versions.map((v: any) => v.change_summary).sort()).toEqual([...bodies].sort());
    for (const r of results) {
      const v = await d.get(`/v0/artifacts/${r.json.art_id}/versions/${r.json.version_number}/download`);
      expect(v.bytes.toString()).toBe(
        versions.find((x: any) => x.version_number === r.json.version_number).change_summary,
      );
    }
    expect(
      (await d.events(`?art_id=${[...ids][0]}&limit=200`)).map((e) => e.action).filter((a) => a === 'artifact.created'),
    ).toHaveLength(1);
  });

  it('concurrent If-Match writers against the same version: exactly one wins, the rest get 412', async () => {
    const d = await driveClient(api);
    await d.put('race/im', 'v1');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => d.put('race/im', `w${i}`, { 'if-match': '1' })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 412)).toHaveLength(9);
  });

  it('a copy racing a purge of the same content never loses bytes', async () => {
    const d = await driveClient(api);
    for (let round = 0; round < 8; round++) {
      const content = `copy-race-${round}-${Math.random()}`;
      const src = (await d.put(`cr/src-${round}`, content)).json;
      await ageBlobs(api, [src.hash]);
      const [copy] = await Promise.all([
        d.call('POST', `/v0/artifacts/${src.art_id}/copy`, { json: { path: `cr/copy-${round}` } }),
        (async () => {
          await d.call('DELETE', `/v0/artifacts/${src.art_id}`);
          await sql(`update artifacts set purge_at = now() - interval '1 second' where id = ?`, [src.art_id]);
          await purgeExpired(api.ctx);
        })(),
      ]);
      expect([200, 404]).toContain(copy.status);
      await purgeExpired(api.ctx);
      if (copy.status === 200) {
        expect(await objectExists(copy.json.hash)).toBe(true);
        expect((await d.get(`/v0/artifacts/${copy.json.art_id}/download`)).bytes.toString()).toBe(content);
      } else {
        expect(await objectExists(src.hash)).toBe(false);
      }
    }
  });

  it('an upload racing the blob purge of the same content never loses bytes', async () => {
    await uploadsRacePurge(api, await driveClient(api), 'ur');
  });
});

describe('concurrent first writes of a drive', () => {
  it('parallel uploads to different paths of a brand-new drive all succeed and are all counted', async () => {
    const d = await driveClient(api);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => d.put(`fresh/${i}`, `f${i}-${Math.random()}`.slice(0, 10))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
    const { storageUsedBytes } = await import('../../src/files/quota.js');
    expect(await storageUsedBytes(api.ctx.orm.em.fork(), d.driveId)).toBe(
      results.reduce((n, r) => n + r.json.size_bytes, 0),
    );
  });
});
