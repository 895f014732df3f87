import { ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { closeUploadSession } from '../../src/uploads/upload-sessions.js';
import { uploadObjectKey } from '../../src/storage/upload-store.js';
import type { TestApi } from '../helpers/api.js';
import { useTestApi } from '../artifacts/client.js';
import { bytes, crc32cOf, sha256, uploadClientFor, type UploadClient } from './helpers.js';

// Above 6 MiB the object goes up in 5 MiB parts (the real defaults are 5 GiB and 512 MiB).
const MiB = 1024 * 1024;
let api: TestApi;
let u: UploadClient;
useTestApi({ UPLOAD_SINGLE_PUT_MAX_BYTES: String(6 * MiB), UPLOAD_PART_BYTES: String(5 * MiB) }, (a, d) => {
  api = a;
  u = uploadClientFor(a, d);
});

type Part = { part_number: number; size_bytes: number; url: string; headers: Record<string, string> };
const putPart = async (p: Part, data: Uint8Array) => {
  const res = await fetch(p.url, {
    method: 'PUT',
    body: data.subarray((p.part_number - 1) * 5 * MiB, (p.part_number - 1) * 5 * MiB + p.size_bytes) as BodyInit,
  });
  await res.arrayBuffer();
  return res.status;
};
const openUploads = async (uploadId: string) =>
  (
    (
      await api.ctx.s3.send(
        new ListMultipartUploadsCommand({
          Bucket: api.ctx.config.s3.bucket,
          Prefix: uploadObjectKey(u.driveId, uploadId),
        }),
      )
    ).Uploads ?? []
  ).length;

describe('large uploads above the single-PUT limit go up in parts', () => {
  it('begin plans signed part URLs; commit names missing parts, then assembles, verifies and creates the artifact', async () => {
    const data = bytes(12 * MiB + 17);
    const b = await u.begin({ path: 'mp/big.bin', size_bytes: data.length, crc32c: crc32cOf(data) });
    expect(b.status).toBe(200);
    expect(b.json).toMatchObject({ upload_url: null, method: 'PUT', max_bytes: data.length, headers: {} });
    const parts: Part[] = b.json.parts;
    expect(parts.map((p) => [p.part_number, p.size_bytes])).toEqual([
      [1, 5 * MiB],
      [2, 5 * MiB],
      [3, 2 * MiB + 17],
    ]);
    expect(parts[2].headers).toEqual({ 'content-length': String(2 * MiB + 17) });

    const none = await u.commit(b.json.upload_id);
    expect([none.status, none.code, none.json.detail.error.missing_parts]).toEqual([409, 'UPLOAD_MISSING', [1, 2, 3]]);
    expect(await putPart(parts[2], data)).toBe(200);
    expect(await putPart(parts[0], data)).toBe(200);
    const some = await u.commit(b.json.upload_id);
    expect([some.status, some.json.detail.error.missing_parts]).toEqual([409, [2]]);
    expect(await putPart(parts[1], data)).toBe(200);

    const c = await u.commit(b.json.upload_id);
    expect(c.status).toBe(200);
    expect(c.json).toMatchObject({ size_bytes: data.length, hash: sha256(data) });
    expect(sha256((await u.get(`/v0/artifacts/${c.json.art_id}/download`)).bytes)).toBe(sha256(data));
    expect((await u.commit(b.json.upload_id)).json).toEqual(c.json);
    expect(await u.objectExists(b.json.upload_id)).toBe(false);
    expect(await openUploads(b.json.upload_id)).toBe(0);
  });

  it('the store refuses a part of another size (its Content-Length is signed)', async () => {
    const b = (await u.begin({ path: 'mp/sized.bin', size_bytes: 7 * MiB })).json;
    // The store answers 403 as soon as it sees the headers, and may reset the connection while the body is still being
    // sent.
    const outcome = await fetch(b.parts[0].url, { method: 'PUT', body: bytes(5 * MiB - 1) as BodyInit }).then(
      (r) => r.status,
      () => 'reset',
    );
    expect([403, 'reset']).toContain(outcome);
    expect((await u.commit(b.upload_id)).json.detail.error.missing_parts).toEqual([1, 2]);
  });

  it('a wrong crc32c over the assembled parts is 409 CHECKSUM_MISMATCH', async () => {
    const data = bytes(7 * MiB);
    const b = (await u.begin({ path: 'mp/crc.bin', size_bytes: data.length, crc32c: crc32cOf(bytes(8)) })).json;
    for (const p of b.parts) expect(await putPart(p, data)).toBe(200);
    expect((await u.commit(b.upload_id)).code).toBe('CHECKSUM_MISMATCH');
    expect(await u.artifactsAt('mp/crc.bin')).toBe(0);
  });

  it('expiry aborts the open multipart upload (its parts go with it) and commit answers 410', async () => {
    const data = bytes(7 * MiB);
    const b = (await u.begin({ path: 'mp/expire.bin', size_bytes: data.length })).json;
    expect(await putPart(b.parts[0], data)).toBe(200);
    expect(await openUploads(b.upload_id)).toBe(1);
    expect(await closeUploadSession(api.ctx, { uploadId: b.upload_id, driveId: u.driveId, expire: true })).toEqual({
      state: 'expired',
      expiredNow: true,
    });
    expect(await openUploads(b.upload_id)).toBe(0);
    expect((await u.commit(b.upload_id)).status).toBe(410);
  });
});
