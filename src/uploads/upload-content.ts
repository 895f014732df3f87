import { createHash } from 'node:crypto';
import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { Crc32c } from '../storage/crc32c.js';
import { completeMultipartUpload, listUploadedParts, planParts } from '../storage/upload-multipart.js';
import {
  copyUploadToBlob,
  deleteUploadObject,
  headUploadObject,
  isMissingObject,
  isPreconditionFailed,
  readUploadObject,
} from '../storage/upload-store.js';
import { writeBlobOnce } from '../files/blobs.js';

/**
 * What a commit does with the uploaded object before any row changes: check its size against
 * the declared size_bytes, stream it once through SHA-256 (and CRC-32C when begin sent one),
 * then make it the content-addressed blob by a server-side copy. Memory holds one stream chunk.
 */
export interface VerifiedUpload {
  hash: string;
  size: number;
  etag: string;
}

const changedDuringCommit = () =>
  new AppError('UPLOAD_CHANGED', 'the uploaded object was replaced while the commit read it; commit again');

type UploadToVerify = {
  objectKey: string;
  sizeBytes: number;
  crc32c: string | null;
  multipart: { uploadId: string; partBytes: number } | null;
};

/**
 * The uploaded object, verified against what begin froze. A single-PUT object that fails (wrong
 * size or checksum) is deleted on the way out: the upload URL writes only where nothing is
 * (If-None-Match), so this is what lets the client upload again and commit, as the error says.
 */
export async function verifyUploadedObject(ctx: AppContext, s: UploadToVerify): Promise<VerifiedUpload> {
  try {
    return await verifyObject(ctx, s);
  } catch (err) {
    const rejected =
      err instanceof AppError && (err.code === 'UPLOAD_SIZE_MISMATCH' || err.code === 'CHECKSUM_MISMATCH');
    if (rejected && !s.multipart) await deleteUploadObject(ctx.s3, ctx.config.s3.bucket, s.objectKey);
    throw err;
  }
}

async function verifyObject(ctx: AppContext, s: UploadToVerify): Promise<VerifiedUpload> {
  const { bucket } = ctx.config.s3;
  let head = await headUploadObject(ctx.s3, bucket, s.objectKey);
  if (!head && s.multipart) {
    await assembleParts(ctx, s.objectKey, s.sizeBytes, s.multipart);
    head = await headUploadObject(ctx.s3, bucket, s.objectKey);
  }
  if (!head)
    throw new AppError('UPLOAD_MISSING', 'nothing has been uploaded to upload_url yet', {
      expected_bytes: s.sizeBytes,
      uploaded_bytes: 0,
    });
  if (head.size !== s.sizeBytes) throw sizeMismatch(s.sizeBytes, head.size);
  const sha = createHash('sha256');
  const crc = s.crc32c ? new Crc32c() : undefined;
  let size = 0;
  try {
    const stream = await readUploadObject(ctx.s3, bucket, s.objectKey, head.etag);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      sha.update(chunk);
      crc?.update(chunk);
    }
  } catch (err) {
    if (isPreconditionFailed(err)) throw changedDuringCommit();
    throw err;
  }
  if (size !== s.sizeBytes) throw sizeMismatch(s.sizeBytes, size);
  if (crc && crc.base64() !== s.crc32c) {
    throw new AppError(
      'CHECKSUM_MISMATCH',
      'the uploaded bytes do not match the crc32c declared at begin; upload again and commit',
      {
        expected_crc32c: s.crc32c,
        uploaded_crc32c: crc.base64(),
      },
    );
  }
  return { hash: sha.digest('hex'), size, etag: head.etag };
}

/**
 * A multipart session's object exists once its parts are assembled: every planned part must be
 * there with its planned size (409 UPLOAD_MISSING names the missing ones), then the upload is
 * completed. A later commit finds the object and skips this.
 */
async function assembleParts(
  ctx: AppContext,
  key: string,
  sizeBytes: number,
  mp: { uploadId: string; partBytes: number },
): Promise<void> {
  const { bucket } = ctx.config.s3;
  let uploaded: Awaited<ReturnType<typeof listUploadedParts>>;
  try {
    uploaded = await listUploadedParts(ctx.s3, bucket, key, mp.uploadId);
  } catch (err) {
    if (isMissingObject(err) || (err as Error)?.name === 'NoSuchUpload') throw partsMissing([]);
    throw err;
  }
  const plan = planParts(sizeBytes, mp.partBytes);
  const matched = plan.map((p) =>
    uploaded.find((u) => u.part_number === p.part_number && u.size_bytes === p.size_bytes),
  );
  const missing = plan.filter((_, i) => !matched[i]).map((p) => p.part_number);
  if (missing.length) throw partsMissing(missing);
  await completeMultipartUpload(
    ctx.s3,
    bucket,
    key,
    mp.uploadId,
    matched.map((m) => m!),
  );
}

const partsMissing = (missing: number[]) =>
  new AppError(
    'UPLOAD_MISSING',
    missing.length ? `parts not uploaded yet: ${missing.join(', ')}` : 'the multipart upload is gone',
    { missing_parts: missing },
  );

function sizeMismatch(expected: number, uploaded: number) {
  return new AppError(
    'UPLOAD_SIZE_MISMATCH',
    `uploaded ${uploaded} bytes but the upload declared size_bytes ${expected}`,
    {
      expected_bytes: expected,
      uploaded_bytes: uploaded,
    },
  );
}

/**
 * Makes the verified bytes available under their hash by a server-side copy, through the blob
 * protocol of src/files/blobs.ts (touch, write, take the touch back on failure), dedup per drive. Returns
 * `written`: the commit's transaction then pins the blob under its row lock and marks it stored.
 */
export function storeUploadedBlob(
  ctx: AppContext,
  driveId: string,
  objectKey: string,
  v: VerifiedUpload,
): Promise<{ written: boolean }> {
  const copy = async () => {
    try {
      await copyUploadToBlob(ctx.s3, ctx.config.s3.bucket, { key: objectKey, etag: v.etag, size: v.size }, v.hash);
    } catch (err) {
      throw isPreconditionFailed(err) ? changedDuringCommit() : err;
    }
  };
  return writeBlobOnce(ctx, v, copy, { driveId });
}
