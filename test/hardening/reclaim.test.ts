import { PutObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { blobKey } from '../../src/storage/blob-store.js';
import { describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/files/purge.js';
import type { TestApi } from '../helpers/api.js';
import { type DriveClient, objectExistsIn, sqlOn, useTestApi } from '../artifacts/client.js';

let api: TestApi;
let d: DriveClient;
// The object-store protocol of blobs (touch, write, pin): small files go there too when nothing is kept inline.
useTestApi({ INLINE_BLOB_MAX_BYTES: '0' }, (a, dc) => {
  api = a;
  d = dc;
});

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const blobRow = async (hash: string) =>
  (await sqlOn(api, `select stored from blobs where hash = ?`, [hash]))[0] as { stored: boolean } | undefined;

describe('bytes with no version are reclaimed by the cleanup schedule', () => {
  it('a PUT that loses its If-Match leaves bytes that the purge takes back after the grace period, never a referenced blob', async () => {
    const first = (await d.put('reclaim/doc', 'v1')).json;
    const refused = `refused-${Math.random()}`;
    const r = await d.put('reclaim/doc', refused, { 'if-match': '7' });
    expect(r.status).toBe(412);
    // The body was refused before it was stored (the early If-Match check), so nothing is left at all.
    expect(await objectExistsIn(api, sha256(refused))).toBe(false);

    // A PUT that loses a race after writing its bytes: two writers with the same If-Match, one wins.
    const racers = [`race-a-${Math.random()}`, `race-b-${Math.random()}`];
    const results = await Promise.all(
      racers.map((body) => d.put('reclaim/doc', body, { 'if-match': String(first.version_number) })),
    );
    expect(results.map((x) => x.status).sort()).toEqual([200, 412]);
    const loser = racers[results.findIndex((x) => x.status === 412)]!;
    const winner = racers[results.findIndex((x) => x.status === 200)]!;
    // A loser that passed the early If-Match check before the winner committed has written its bytes:
    // an unstored row and an object with no version. One that checked after wrote nothing.
    const loserWrote = (await blobRow(sha256(loser))) !== undefined;
    if (loserWrote) expect(await blobRow(sha256(loser))).toEqual({ stored: false });
    expect(await objectExistsIn(api, sha256(loser))).toBe(loserWrote);
    // And the deterministic case: bytes a crashed upload left (object written, row never marked stored).
    const crashed = `crashed-${Math.random()}`;
    await sqlOn(api, `insert into blobs (hash, size_bytes, stored) values (?, ?, false)`, [
      sha256(crashed),
      crashed.length,
    ]);
    await api.ctx.s3.send(
      new PutObjectCommand({ Bucket: api.ctx.config.s3.bucket, Key: blobKey(sha256(crashed)), Body: crashed }),
    );

    // Within the grace period nothing is taken (an upload between its touch and its commit looks the same).
    await purgeExpired(api.ctx);
    expect(await objectExistsIn(api, sha256(winner))).toBe(true);
    expect(await objectExistsIn(api, sha256(crashed))).toBe(true);

    // Past the grace period: the orphan goes, the referenced blobs stay even though their rows are as old.
    await sqlOn(api, `update blobs set last_used_at = now() - interval '2 hours' where hash = any(array[?]::text[])`, [
      [sha256(loser), sha256(crashed), sha256(winner), first.hash],
    ]);
    await purgeExpired(api.ctx);
    for (const orphan of [loser, crashed]) {
      expect(await objectExistsIn(api, sha256(orphan))).toBe(false);
      expect(await blobRow(sha256(orphan))).toBeUndefined();
    }
    expect(await objectExistsIn(api, sha256(winner))).toBe(true);
    expect(await objectExistsIn(api, first.hash)).toBe(true);
    expect((await d.get(`/v0/artifacts/${first.art_id}/versions/1/download`)).bytes.toString()).toBe('v1');
  });

  it('an aged unstored row is reclaimed while a concurrent PUT of the same content keeps its bytes', async () => {
    for (let round = 0; round < 5; round++) {
      const content = `orphan-then-put-${round}-${Math.random()}`;
      const hash = sha256(content);
      // An orphan as a crashed upload leaves it: an unstored row, aged past the grace period.
      await sqlOn(
        api,
        `insert into blobs (hash, size_bytes, stored, last_used_at) values (?, ?, false, now() - interval '2 hours')`,
        [hash, content.length],
      );
      const [put] = await Promise.all([d.put(`reclaim/race-${round}`, content), purgeExpired(api.ctx)]);
      expect(put.status).toBe(200);
      await purgeExpired(api.ctx);
      expect(await objectExistsIn(api, hash)).toBe(true);
      expect((await d.get(`/v0/artifacts/${put.json.art_id}/download`)).bytes.toString()).toBe(content);
    }
  });
});
