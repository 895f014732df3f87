import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { usePrivateS3 } from '../helpers/private-s3.js';
import { driveClient, s3ObjectExistsIn, sqlOn, type DriveClient } from './client.js';

/**
 * Issue 40, small files inline: bytes up to INLINE_BLOB_MAX_BYTES (here 1,024) live in their blob row, so with the
 * object store stopped a small write is still acknowledged and every read path serves it; a larger one is 503.
 * No purge here: this suite's API has an S3 of its own, and a purge would delete other suites' rows (inline.test.ts).
 */
let api: TestApi;
let d: DriveClient;
const gateway = usePrivateS3(
  22,
  {
    INLINE_BLOB_MAX_BYTES: '1024',
    // download-url answers a presigned S3 URL from 100 bytes on, so an inline blob's presigned URL is exercised.
    SIGNED_DOWNLOAD_THRESHOLD_BYTES: '100',
  },
  async (a) => {
    api = a;
    d = await driveClient(api);
  },
);

const sql = (q: string, p: unknown[] = []) => sqlOn(api, q, p);
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('small files inline', () => {
  it('S3 down: a small write is acknowledged and read back whole, by range, by version, with its ETag; a copy and a version restore share it; a large write is 503', async () => {
    await gateway.stop();
    try {
      const text = `# inline note ${Math.random()}\n\nkept in PostgreSQL\n`;
      const put = await d.put('inline/note.md', text, { 'content-type': 'text/markdown' });
      expect(put.status).toBe(200);
      expect(put.json).toMatchObject({ size_bytes: text.length, hash: sha256(text), version_number: 1 });
      const row = (await sql(`select stored, content from blobs where hash = ?`, [sha256(text)]))[0] as {
        stored: boolean;
        content: Buffer;
      };
      expect(row.stored).toBe(true);
      expect(Buffer.from(row.content).toString()).toBe(text);

      const dl = await d.get(`/v0/artifacts/${put.json.art_id}/download`);
      expect([dl.status, dl.bytes.toString()]).toEqual([200, text]);
      expect(dl.headers.get('etag')).toBe(`"${sha256(text)}"`);
      const part = await d.get(`/v0/artifacts/${put.json.art_id}/download`, { range: 'bytes=2-7' });
      expect([part.status, part.bytes.toString()]).toEqual([206, text.slice(2, 8)]);

      const v2 = await d.put('inline/note.md', 'second version');
      expect(v2.json.version_number).toBe(2);
      const v1 = await d.get(`/v0/artifacts/${put.json.art_id}/versions/1/download`);
      expect(v1.bytes.toString()).toBe(text);
      const restored = await d.call('POST', `/v0/artifacts/${put.json.art_id}/versions/1/restore`);
      expect(restored.json).toMatchObject({ version_number: 3, hash: sha256(text) });
      const copy = await d.call('POST', `/v0/artifacts/${put.json.art_id}/copy`, { json: { path: 'inline/copy.md' } });
      expect(copy.status).toBe(200);
      expect((await d.get(`/v0/artifacts/${copy.json.art_id}/download`)).bytes.toString()).toBe(text);

      const large = await d.put('inline/large.bin', 'L'.repeat(2000));
      expect([large.status, large.code]).toEqual([503, 'STORAGE_FAILURE']);
      expect(
        await sql(`select 1 from artifacts where drive_id = ? and path = 'inline/large.bin'`, [d.driveId]),
      ).toHaveLength(0);
    } finally {
      await gateway.start();
    }
  });

  it('a presigned download URL of an inline blob is an ordinary S3 URL (the bytes are put there first)', async () => {
    const text = `presigned ${Math.random()} `.repeat(8);
    const a = (await d.put('inline/presigned.txt', text)).json;
    expect(await s3ObjectExistsIn(api, a.hash)).toBe(false);
    const u = await d.get(`/v0/artifacts/${a.art_id}/download-url`);
    expect(u.json.direct).toBe(true);
    const got = await fetch(u.json.url);
    expect([got.status, await got.text()]).toEqual([200, text]);
  });
});
