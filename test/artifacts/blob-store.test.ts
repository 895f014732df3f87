import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { blobKey, putBlob, readBlob } from '../../src/storage/blob-store.js';
import { spoolBody } from '../../src/storage/spool.js';
import type { TestApi } from '../helpers/api.js';
import { useTestApi } from './client.js';

let api: TestApi;
useTestApi({}, (a) => {
  api = a;
});

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const exists = (hash: string) =>
  api.ctx.s3.send(new HeadObjectCommand({ Bucket: api.ctx.config.s3.bucket, Key: blobKey(hash) })).then(
    () => true,
    () => false,
  );

describe('content-addressed writes', () => {
  it('stores buffers and streams under their hash, sent as the signed payload hash', async () => {
    const { s3, config } = api.ctx;
    const small = randomBytes(2048);
    await putBlob(s3, config.s3.bucket, sha256(small), small, small.length);
    expect(Buffer.compare(await readBlob(s3, config.s3.bucket, sha256(small)), small)).toBe(0);
    const streamed = randomBytes(300_000);
    await putBlob(
      s3,
      config.s3.bucket,
      sha256(streamed),
      () => Readable.from([streamed.subarray(0, 1000), streamed.subarray(1000)]),
      streamed.length,
    );
    expect(Buffer.compare(await readBlob(s3, config.s3.bucket, sha256(streamed)), streamed)).toBe(0);
  });

  it('gives a stream that failed one fresh try (the SDK never resends a consumed stream)', async () => {
    const { s3, config } = api.ctx;
    const bytes = randomBytes(200_000);
    let calls = 0;
    // The first attempt sends other bytes of the same length: S3 refuses them (their hash differs), the second goes.
    const body = () => (++calls === 1 ? Readable.from([randomBytes(bytes.length)]) : Readable.from([bytes]));
    await putBlob(s3, config.s3.bucket, sha256(bytes), body, bytes.length);
    expect(calls).toBe(2);
    expect(Buffer.compare(await readBlob(s3, config.s3.bucket, sha256(bytes)), bytes)).toBe(0);
  });

  it('S3 refuses bytes that do not match their hash, so nothing is stored under it', async () => {
    const bytes = randomBytes(4096);
    const wrongHash = sha256(randomBytes(16));
    await expect(putBlob(api.ctx.s3, api.ctx.config.s3.bucket, wrongHash, bytes, bytes.length)).rejects.toMatchObject({
      code: 'STORAGE_FAILURE',
    });
    expect(await exists(wrongHash)).toBe(false);
  });

  it('with a CRC-32 taken with the hash, S3 checks the arrival against it and refuses other bytes', async () => {
    const { s3, config } = api.ctx;
    const bytes = randomBytes(300_000);
    // The spool takes both from the same pieces, in the same pass.
    const spooled = await spoolBody(Readable.from([bytes.subarray(0, 70_000), bytes.subarray(70_000)]), {
      maxBytes: 1e6,
      memoryBytes: 1e6,
    });
    if (spooled.tooLarge) throw new Error('not too large');
    expect(spooled.hash).toBe(sha256(bytes));
    expect(spooled.crc32).toBe(crc32(bytes));
    await putBlob(s3, config.s3.bucket, spooled.hash, () => spooled.body(), spooled.size, spooled.crc32);
    expect(Buffer.compare(await readBlob(s3, config.s3.bucket, spooled.hash), bytes)).toBe(0);

    // Other bytes of the same length under another hash, sent with the first bytes' CRC: refused, nothing stored.
    const other = randomBytes(bytes.length);
    await expect(
      putBlob(s3, config.s3.bucket, sha256(other), () => Readable.from([other]), other.length, spooled.crc32),
    ).rejects.toMatchObject({ code: 'STORAGE_FAILURE' });
    await expect(
      putBlob(s3, config.s3.bucket, sha256(other), other, other.length, spooled.crc32),
    ).rejects.toMatchObject({
      code: 'STORAGE_FAILURE',
    });
    expect(await exists(sha256(other))).toBe(false);
  });
});
