import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { contentDisposition } from '../lib/content-disposition.js';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { checksumWireForm } from './crc32c.js';
import { presignerFor } from './s3.js';
import type { Readable } from 'node:stream';
import { AppError } from '../lib/errors.js';

/** Object storage for content-addressed bytes: one object per SHA-256, under `blobs/sha256/`. */
export const blobKey = (hash: string) => `blobs/sha256/${hash.slice(0, 2)}/${hash}`;

/** Any failure to talk to the object store becomes 503 STORAGE_FAILURE (spec 7). */
export function storageFailure(err: unknown): AppError {
  return new AppError('STORAGE_FAILURE', `object storage unavailable: ${(err as Error)?.name ?? 'error'}`);
}

/**
 * Writes the bytes whose SHA-256 is `hash`, so that S3 refuses them if what arrives is not what was hashed:
 * - with `crc32` (computed in the same pass as the hash, over the same pieces: spoolBody), the PUT carries it as
 *   x-amz-checksum-crc32 and an unsigned payload. S3 checks the CRC (BadDigest otherwise) instead of hashing the
 *   megabyte with SHA-256 once more: the gateway's CPU per 1 MB PUT 6.3 → 4.4 ms (docs/decisions/write-path.md,
 *   "Fifth round").
 * - without, the hash itself goes out as the signed payload hash (x-amz-content-sha256) and S3 checks that: for bytes
 *   whose checksum was not taken with their hash (inline bytes copied out of PostgreSQL, say).
 * Either way the SDK never reads the body to hash it.
 */
export async function putBlob(
  s3: S3Client,
  bucket: string,
  hash: string,
  body: Buffer | (() => Buffer | Readable),
  size: number,
  crc32?: number,
): Promise<void> {
  const bytes = typeof body === 'function' ? body() : body;
  const content = { hash, size, crc32 };
  try {
    await putObject(s3, bucket, content, bytes);
  } catch (err) {
    // The SDK retries a buffer itself but never resends a stream it has consumed: a stream gets one fresh try here.
    if (typeof body !== 'function' || Buffer.isBuffer(bytes)) throw storageFailure(err);
    bytes.destroy();
    try {
      await putObject(s3, bucket, content, body());
    } catch (again) {
      throw storageFailure(again);
    }
  }
}

function putObject(
  s3: S3Client,
  bucket: string,
  content: { hash: string; size: number; crc32?: number },
  body: Buffer | Readable,
) {
  const put = new PutObjectCommand({
    Bucket: bucket,
    Key: blobKey(content.hash),
    Body: body,
    ContentLength: content.size,
    ContentType: 'application/octet-stream',
    ChecksumCRC32: content.crc32 === undefined ? undefined : checksumWireForm(content.crc32),
  });
  const payloadHash = content.crc32 === undefined ? content.hash : 'UNSIGNED-PAYLOAD';
  put.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string> };
      if (request.headers) request.headers['x-amz-content-sha256'] = payloadHash;
      return next(args);
    },
    { step: 'build', name: 'contentAddressedPayloadHash' },
  );
  return s3.send(put);
}

export interface BlobRange {
  start: number;
  end: number;
}

export async function getBlobStream(s3: S3Client, bucket: string, hash: string, range?: BlobRange): Promise<Readable> {
  try {
    const out = await s3.send(
      new GetObjectCommand({
        Bucket: bucket,
        Key: blobKey(hash),
        Range: range ? `bytes=${range.start}-${range.end}` : undefined,
      }),
    );
    return out.Body as Readable;
  } catch (err) {
    throw storageFailure(err);
  }
}

export async function readBlob(s3: S3Client, bucket: string, hash: string): Promise<Buffer> {
  const stream = await getBlobStream(s3, bucket, hash);
  const chunks: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

export async function deleteBlobObject(s3: S3Client, bucket: string, hash: string): Promise<void> {
  await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: blobKey(hash) }));
}

export async function presignBlob(
  s3: S3Client,
  bucket: string,
  hash: string,
  opts: { expiresInS: number; contentType: string; filename: string },
): Promise<string> {
  const cmd = new GetObjectCommand({
    Bucket: bucket,
    Key: blobKey(hash),
    ResponseContentType: opts.contentType,
    ResponseContentDisposition: contentDisposition('attachment', opts.filename),
  });
  return getSignedUrl(presignerFor(s3), cmd, { expiresIn: opts.expiresInS });
}
