import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BlobCache } from '../../src/storage/blob-cache.js';
import { blobKey } from '../../src/storage/blob-store.js';
import type { TestApi } from '../helpers/api.js';
import { type DriveClient, driveClient, useTestApi } from './client.js';

let api: TestApi;
let d: DriveClient;
// Blobs up to 4 KB are cached, in at most 10 KB.
// The cache in front of S3: small files go to S3 when nothing is kept inline.
useTestApi({ BLOB_CACHE_BYTES: '10240', BLOB_CACHE_MAX_OBJECT_BYTES: '4096', INLINE_BLOB_MAX_BYTES: '0' }, (a, dc) => {
  api = a;
  d = dc;
});

/** Removes the object behind a hash from S3, so only the cache can still answer. */
const dropObject = (hash: string) =>
  api.ctx.s3.send(new DeleteObjectCommand({ Bucket: api.ctx.config.s3.bucket, Key: blobKey(hash) }));
const hashOf = async (artId: string) =>
  ((await d.get(`/v0/artifacts/${artId}/download`)).headers.get('etag') ?? '').replaceAll('"', '');

describe('download cache', () => {
  it('serves a small blob from memory once read, whole and by range, with the same headers', async () => {
    const bytes = randomBytes(3000);
    const a = (await d.put('cache/small.bin', bytes)).json;
    const first = await d.get(`/v0/artifacts/${a.art_id}/download`);
    expect(Buffer.compare(first.bytes, bytes)).toBe(0);
    // With the object gone from S3, only the cache can answer.
    await dropObject(await hashOf(a.art_id));
    const again = await d.get(`/v0/artifacts/${a.art_id}/download`);
    expect(again.status).toBe(200);
    expect(Buffer.compare(again.bytes, bytes)).toBe(0);
    expect(again.headers.get('content-disposition')).toBe(first.headers.get('content-disposition'));
    expect(again.headers.get('content-length')).toBe('3000');
    const part = await d.get(`/v0/artifacts/${a.art_id}/download`, { range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 100-199/3000');
    expect(Buffer.compare(part.bytes, bytes.subarray(100, 200))).toBe(0);
    // Tenant isolation is decided before the cache: another drive still gets 404.
    expect((await (await driveClient(api)).get(`/v0/artifacts/${a.art_id}/download`)).status).toBe(404);
  });

  it('streams blobs above the per-object limit from S3 every time', async () => {
    const bytes = randomBytes(6000);
    const a = (await d.put('cache/large.bin', bytes)).json;
    expect(Buffer.compare((await d.get(`/v0/artifacts/${a.art_id}/download`)).bytes, bytes)).toBe(0);
    const part = await d.get(`/v0/artifacts/${a.art_id}/download`, { range: 'bytes=5990-' });
    expect(Buffer.compare(part.bytes, bytes.subarray(5990))).toBe(0);
    await dropObject(await hashOf(a.art_id));
    const gone = await d.get(`/v0/artifacts/${a.art_id}/download`);
    expect(gone.status).toBe(503);
  });

  it('evicts the least recently used blob when over its byte bound', async () => {
    const cache = new BlobCache({ maxBytes: 10, maxObjectBytes: 4 });
    cache.set('a', Buffer.from('aaaa'));
    cache.set('b', Buffer.from('bbbb'));
    expect(cache.get('a')?.toString()).toBe('aaaa'); // a is now the most recent
    cache.set('c', Buffer.from('cccc'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toEqual({ entries: 2, bytes: 8 });
    cache.set('big', Buffer.from('too big'));
    expect(cache.get('big')).toBeUndefined();
    expect(new BlobCache({ maxBytes: 0, maxObjectBytes: 4 }).accepts(1)).toBe(false);
  });

  it('loads a missing blob once for concurrent readers and caches nothing when the load fails', async () => {
    const cache = new BlobCache({ maxBytes: 100, maxObjectBytes: 100 });
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 20));
      return Buffer.from('x');
    };
    const got = await Promise.all([cache.getOrLoad('h', load), cache.getOrLoad('h', load), cache.getOrLoad('h', load)]);
    expect(loads).toBe(1);
    expect(got.map(String)).toEqual(['x', 'x', 'x']);
    await expect(cache.getOrLoad('bad', () => Promise.reject(new Error('s3 down')))).rejects.toThrow('s3 down');
    expect(cache.get('bad')).toBeUndefined();
    expect(await cache.getOrLoad('bad', async () => Buffer.from('y'))).toEqual(Buffer.from('y'));
  });
});
