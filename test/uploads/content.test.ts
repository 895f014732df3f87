import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { blobKey } from '../../src/storage/blob-store.js';
import { Crc32c } from '../../src/storage/crc32c.js';
import { copyUploadToBlob, headUploadObject } from '../../src/storage/upload-store.js';
import type { TestApi } from '../helpers/api.js';
import { useTestApi } from '../artifacts/client.js';
import { bytes, crc32cOf, sha256, uploadClientFor, type UploadClient } from './helpers.js';

let api: TestApi;
let u: UploadClient;
useTestApi({}, (a, d) => {
  api = a;
  u = uploadClientFor(a, d);
});

describe('CRC-32C', () => {
  it('matches the published check values and does not depend on how the bytes are chunked', () => {
    expect(new Crc32c().update(Buffer.from('123456789')).value()).toBe(0xe3069283);
    expect(new Crc32c().update(Buffer.alloc(32, 0)).value()).toBe(0x8a9136aa);
    expect(new Crc32c().update(Buffer.alloc(32, 0xff)).value()).toBe(0x62a8ab43);
    expect(new Crc32c().update(Buffer.alloc(0)).base64()).toBe('AAAAAA==');
    const data = bytes(100_003);
    const whole = new Crc32c().update(data).value();
    const chunked = new Crc32c();
    for (let i = 0; i < data.length; i += 4093) chunked.update(data.subarray(i, i + 4093));
    expect(chunked.value()).toBe(whole);
  });

  it('agrees with the object store: S3 accepts a PUT carrying our checksum and rejects a wrong one', async () => {
    const data = bytes(5000);
    const put = (crc: string) =>
      api.ctx.s3.send(
        new PutObjectCommand({
          Bucket: api.ctx.config.s3.bucket,
          Key: `crc-check/${Date.now()}`,
          Body: data,
          ChecksumCRC32C: crc,
        }),
      );
    await expect(put(crc32cOf(data))).resolves.toBeDefined();
    await expect(put(crc32cOf(bytes(10)))).rejects.toThrow();
  });
});

describe('commit checks the checksum', () => {
  it('a matching crc32c commits; a mismatch is 409 CHECKSUM_MISMATCH, writes nothing, and the session stays open', async () => {
    const data = bytes(9000);
    const good = (await u.begin({ path: 'crc/good.bin', size_bytes: data.length, crc32c: crc32cOf(data) })).json;
    await u.putToUrl(good, data);
    expect((await u.commit(good.upload_id)).json.hash).toBe(sha256(data));

    const other = bytes(9000);
    const bad = (await u.begin({ path: 'crc/bad.bin', size_bytes: data.length, crc32c: crc32cOf(data) })).json;
    await u.putToUrl(bad, other);
    const r = await u.commit(bad.upload_id);
    expect([r.status, r.code]).toEqual([409, 'CHECKSUM_MISMATCH']);
    expect(r.json.detail.error).toMatchObject({ expected_crc32c: crc32cOf(data), uploaded_crc32c: crc32cOf(other) });
    expect(await u.artifactsAt('crc/bad.bin')).toBe(0);
    expect((await u.session(bad.upload_id))!.state).toBe('begun');
    await u.putToUrl(bad, data);
    expect((await u.commit(bad.upload_id)).status).toBe(200);
  });

  it('bytes already stored under their hash are reused: the commit skips the copy and the artifacts share the blob', async () => {
    const data = bytes(3000);
    const a = await u.put('dedup/a.bin', data);
    const b = (await u.begin({ path: 'dedup/b.bin', size_bytes: data.length })).json;
    await u.putToUrl(b, data);
    const c = await u.commit(b.upload_id);
    expect(c.json.hash).toBe(a.json.hash);
    expect((await u.get(`/v0/artifacts/${c.json.art_id}/download`)).bytes.equals(Buffer.from(data))).toBe(true);
  });
});

describe('server-side copy to the blob key', () => {
  it('copies above the single-copy limit as a multipart copy in ranges, byte for byte', async () => {
    const data = bytes(12 * 1024 * 1024 + 17);
    const bucket = api.ctx.config.s3.bucket;
    const key = `uploads/multipart-test/${Date.now()}`;
    await api.ctx.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: data }));
    const head = (await headUploadObject(api.ctx.s3, bucket, key))!;
    const hash = sha256(data);
    await copyUploadToBlob(
      api.ctx.s3,
      bucket,
      { key, etag: head.etag, size: data.length },
      hash,
      5 * 1024 * 1024,
      1024,
    );
    const got = await api.ctx.s3.send(new GetObjectCommand({ Bucket: bucket, Key: blobKey(hash) }));
    const h = createHash('sha256');
    for await (const chunk of got.Body as AsyncIterable<Buffer>) h.update(chunk);
    expect(h.digest('hex')).toBe(hash);
    const meta = await api.ctx.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: blobKey(hash) }));
    expect(meta.ContentLength).toBe(data.length);
  });

  it('refuses to copy an object replaced since it was hashed (ETag pinned)', async () => {
    const bucket = api.ctx.config.s3.bucket;
    const key = `uploads/etag-test/${Date.now()}`;
    await api.ctx.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: Buffer.from('first') }));
    const head = (await headUploadObject(api.ctx.s3, bucket, key))!;
    await api.ctx.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: Buffer.from('second') }));
    await expect(
      copyUploadToBlob(api.ctx.s3, bucket, { key, etag: head.etag, size: 5 }, sha256(Buffer.from('first'))),
    ).rejects.toThrow();
  });
});
