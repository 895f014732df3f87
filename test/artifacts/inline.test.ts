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
});
