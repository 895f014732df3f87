import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { contentDisposition } from '../lib/content-disposition.js';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
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
 * Writes the bytes whose SHA-256 is `hash`. The hash goes out as the signed payload hash
 * (x-amz-content-sha256): the SDK then skips hashing the body again, and S3 refuses the PUT if the
 * bytes that arrive do not match, so a corrupted transfer can never be stored under the hash.
 */
export async function putBlob(
  s3: S3Client,
  bucket: string,
  hash: string,
  body: Buffer | (() => Buffer | Readable),
  size: number,
): Promise<void> {
  const bytes = typeof body === 'function' ? body() : body;
  try {
    await putObject(s3, bucket, hash, bytes, size);
  } catch (err) {
    // The SDK retries a buffer itself but never resends a stream it has consumed: a stream gets one fresh try here.
    if (typeof body !== 'function' || Buffer.isBuffer(bytes)) throw storageFailure(err);
    bytes.destroy();
    try {
      await putObject(s3, bucket, hash, body(), size);
    } catch (again) {
      throw storageFailure(again);
    }
  }
}

function putObject(s3: S3Client, bucket: string, hash: string, body: Buffer | Readable, size: number) {
  const put = new PutObjectCommand({
    Bucket: bucket,
    Key: blobKey(hash),
    Body: body,
    ContentLength: size,
    ContentType: 'application/octet-stream',
  });
  put.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string> };
      if (request.headers) request.headers['x-amz-content-sha256'] = hash;
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
