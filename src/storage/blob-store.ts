import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import { ApiError } from '../api/errors.js';

/** Object storage for content-addressed bytes: one object per SHA-256, under `blobs/sha256/`. */
export const blobKey = (hash: string) => `blobs/sha256/${hash.slice(0, 2)}/${hash}`;

/** Any failure to talk to the object store becomes 503 STORAGE_FAILURE (spec 7). */
export function storageFailure(err: unknown): ApiError {
  return new ApiError(503, 'STORAGE_FAILURE', `object storage unavailable: ${(err as Error)?.name ?? 'error'}`);
}

export async function putBlob(s3: S3Client, bucket: string, hash: string, body: Buffer | Readable, size: number): Promise<void> {
  try {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: blobKey(hash), Body: body, ContentLength: size, ContentType: 'application/octet-stream' }));
  } catch (err) {
    throw storageFailure(err);
  }
}

export interface BlobRange {
  start: number;
  end: number;
}

export async function getBlobStream(s3: S3Client, bucket: string, hash: string, range?: BlobRange): Promise<Readable> {
  try {
    const out = await s3.send(
      new GetObjectCommand({ Bucket: bucket, Key: blobKey(hash), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
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
    ResponseContentDisposition: `attachment; filename="${opts.filename.replace(/"/g, '')}"`,
  });
  return getSignedUrl(s3, cmd, { expiresIn: opts.expiresInS });
}
