import { describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/files/purge.js';
import { storageUsedBytes } from '../../src/files/quota.js';
import type { TestApi } from '../helpers/api.js';
import { ageBlobs, driveClient, sqlOn, uploadsRacePurge, useTestApi, type DriveClient } from './client.js';

/** Issue 40, small files inline (the default 64 KiB) against the shared stack: quota, purge and races. */
let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, dc) => {
  api = a;
  d = dc;
});

const sql = (q: string, p: unknown[] = []) => sqlOn(api, q, p);

describe('small files inline: quota, purge, races', () => {
  it('quota counts inline bytes; the purge removes an unreferenced inline blob with its row', async () => {
    const used = () => storageUsedBytes(api.ctx.orm.em.fork(), d.driveId);
    const before = await used();
    const text = `to purge ${Math.random()}`;
    const a = (await d.put('inline/purge.txt', text)).json;
    expect(await sql(`select 1 from blobs where hash = ? and content is not null`, [a.hash])).toHaveLength(1);
    expect(await used()).toBe(before + text.length);
    await d.call('DELETE', `/v0/artifacts/${a.art_id}`);
    await sql(`update artifacts set purge_at = now() - interval '1 second' where id = ?`, [a.art_id]);
    await purgeExpired(api.ctx);
    await ageBlobs(api, [a.hash]);
    await purgeExpired(api.ctx);
    expect(await sql(`select 1 from blobs where hash = ?`, [a.hash])).toHaveLength(0);
  });

  it('an inline write racing the blob purge of the same content never loses bytes', async () => {
    await uploadsRacePurge(api, await driveClient(api), 'race');
  });

  it("parallel inline first writes of a new drive all succeed and are all counted (the drive's storage row is created once)", async () => {
    const fresh = await driveClient(api);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => fresh.put(`fresh/${i}`, `f${i}-${Math.random()}`)),
    );
    expect(results.map((x) => x.status)).toEqual(Array(12).fill(200));
    expect(await storageUsedBytes(api.ctx.orm.em.fork(), fresh.driveId)).toBe(
      results.reduce((n, x) => n + x.json.size_bytes, 0),
    );
  });

  it('20 concurrent small PUTs to one new path (one statement each): one created, 19 updated, every version with its event, its blob and its bytes counted', async () => {
    const fresh = await driveClient(api);
    const bodies = Array.from({ length: 20 }, (_, i) => `small body ${i} ${Math.random()}`);
    const results = await Promise.all(
      bodies.map((b) => fresh.put('race/small.md', b, { 'x-drive-change-summary': b })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => r.json.art_id)).size).toBe(1);
    const artId = results[0].json.art_id;
    expect(results.map((r) => r.json.version_number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const events = await fresh.events(`?art_id=${artId}&limit=200`);
    expect(events.filter((e) => e.action === 'artifact.created').map((e) => e.metadata.version_number)).toEqual([1]);
    const updated = events.filter((e) => e.action === 'artifact.updated').map((e) => e.metadata.version_number);
    expect(updated.sort((a, b) => a - b)).toEqual(Array.from({ length: 19 }, (_, i) => i + 2));
    const versions = (await fresh.get(`/v0/artifacts/${artId}/versions?limit=100`)).json.items;
    for (const v of versions) {
      const got = await fresh.get(`/v0/artifacts/${artId}/versions/${v.version_number}/download`);
      expect(got.bytes.toString()).toBe(v.change_summary);
      expect(await sql(`select 1 from blobs where hash = ? and content is not null`, [v.hash])).toHaveLength(1);
    }
    expect(versions.map((v: any) => v.change_summary).sort()).toEqual([...bodies].sort());
    expect(await storageUsedBytes(api.ctx.orm.em.fork(), fresh.driveId)).toBe(
      bodies.reduce((n, b) => n + Buffer.byteLength(b), 0),
    );
    // Each write queued its search request in its own statement: the index reaches the last version.
    let indexed: unknown[] = [];
    for (
      const end = Date.now() + 30_000;
      !indexed.length && Date.now() < end;
      await new Promise((r) => setTimeout(r, 100))
    )
      indexed = await sql(`select 1 from search_documents where art_id = ? and version_number = 20`, [artId]);
    expect(indexed).toHaveLength(1);
  });

  it('a small PUT over quota writes nothing: no version, no event, no blob, nothing counted', async () => {
    const small = await driveClient(api);
    await sql(
      `insert into drive_storage (drive_id, used_bytes) values (?, ?)
      on conflict (drive_id) do update set used_bytes = excluded.used_bytes`,
      [small.driveId, api.ctx.config.limits.storageQuotaBytes - 10],
    );
    const body = `over quota ${Math.random()}`;
    const refused = await small.put('quota/over.txt', body);
    expect(refused.status).toBe(413);
    expect(refused.json.detail.error.code).toBe('STORAGE_QUOTA_EXCEEDED');
    expect(await sql(`select 1 from artifacts where drive_id = ?`, [small.driveId])).toHaveLength(0);
    expect(await small.events('?limit=50')).toEqual([]);
    expect(await storageUsedBytes(api.ctx.orm.em.fork(), small.driveId)).toBe(
      api.ctx.config.limits.storageQuotaBytes - 10,
    );
    const fits = await small.put('quota/fits.txt', 'ten bytes!');
    expect(fits.status).toBe(200);
    expect(await storageUsedBytes(api.ctx.orm.em.fork(), small.driveId)).toBe(api.ctx.config.limits.storageQuotaBytes);
  });
});
