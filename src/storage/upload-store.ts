import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCopyCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { presignerFor } from './s3.js';
import type { Readable } from 'node:stream';
import { blobKey } from './blob-store.js';

/**
 * The temporary objects of large uploads: `uploads/<drive_id>/<upload_id>`, written by the
 * client through a presigned PUT, read once by the commit, server-side copied to the blob's
 * content-addressed key and deleted. The API never holds the bytes.
 */
export const uploadObjectKey = (driveId: string, uploadId: string) => `uploads/${driveId}/${uploadId}`;

/** The largest object one PUT (and one CopyObject) may carry on S3: 5 GiB. */
export const SINGLE_PUT_MAX_BYTES = 5 * 1024 ** 3;
/** Part size of the multipart server-side copy used above SINGLE_PUT_MAX_BYTES. */
export const COPY_PART_BYTES = 512 * 1024 ** 2;

const statusOf = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
export const isMissingObject = (err: unknown) =>
  statusOf(err) === 404 || (err as Error)?.name === 'NoSuchKey' || (err as Error)?.name === 'NotFound';
export const isPreconditionFailed = (err: unknown) =>
  statusOf(err) === 412 || (err as Error)?.name === 'PreconditionFailed';

/**
 * A presigned PUT whose signature covers Content-Length and Content-Type: the store itself
 * refuses a body of any other size (403), so an upload can never exceed what begin reserved.
 */
export async function presignUploadPut(
  s3: S3Client,
  bucket: string,
  key: string,
  opts: { sizeBytes: number; contentType: string; expiresInS: number },
): Promise<{ url: string; headers: Record<string, string> }> {
  const cmd = new PutObjectCommand({
    Bucket: bucket,
    Key: key,
    ContentLength: opts.sizeBytes,
    ContentType: opts.contentType,
  });
  const url = await getSignedUrl(presignerFor(s3), cmd, {
    expiresIn: opts.expiresInS,
    signableHeaders: new Set(['content-length', 'content-type']),
  });
  return { url, headers: { 'content-type': opts.contentType, 'content-length': String(opts.sizeBytes) } };
}

/** Size and ETag of the uploaded object, or undefined when nothing was uploaded. */
export async function headUploadObject(
  s3: S3Client,
  bucket: string,
  key: string,
): Promise<{ size: number; etag: string } | undefined> {
  try {
    const h = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return { size: Number(h.ContentLength ?? 0), etag: h.ETag ?? '' };
  } catch (err) {
    if (isMissingObject(err)) return undefined;
    throw err;
  }
}

/** A stream of the uploaded object, pinned to the ETag that was checked (412 if it was replaced since). */
export async function readUploadObject(s3: S3Client, bucket: string, key: string, etag: string): Promise<Readable> {
  const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, IfMatch: etag }));
  return out.Body as Readable;
}

/**
 * Server-side copy of the uploaded object to the blob key of its hash, only if it still has the
 * ETag whose bytes were hashed. CopyObject up to 5 GiB; above that a multipart copy in
 * `partBytes` ranges (UploadPartCopy), aborted on failure so no parts linger.
 */
export async function copyUploadToBlob(
  s3: S3Client,
  bucket: string,
  src: { key: string; etag: string; size: number },
  hash: string,
  partBytes = COPY_PART_BYTES,
  singleMax = SINGLE_PUT_MAX_BYTES,
): Promise<void> {
  const CopySource = `${bucket}/${src.key}`;
  const Key = blobKey(hash);
  if (src.size <= singleMax) {
    await s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key,
        CopySource,
        CopySourceIfMatch: src.etag,
        ContentType: 'application/octet-stream',
      }),
    );
    return;
  }
  const { UploadId } = await s3.send(
    new CreateMultipartUploadCommand({ Bucket: bucket, Key, ContentType: 'application/octet-stream' }),
  );
  try {
    const parts: { PartNumber: number; ETag?: string }[] = [];
    for (let start = 0, n = 1; start < src.size; start += partBytes, n++) {
      const end = Math.min(src.size, start + partBytes) - 1;
      const r = await s3.send(
        new UploadPartCopyCommand({
          Bucket: bucket,
          Key,
          UploadId,
          PartNumber: n,
          CopySource,
          CopySourceIfMatch: src.etag,
          CopySourceRange: `bytes=${start}-${end}`,
        }),
      );
      parts.push({ PartNumber: n, ETag: r.CopyPartResult?.ETag });
    }
    await s3.send(
      new CompleteMultipartUploadCommand({ Bucket: bucket, Key, UploadId, MultipartUpload: { Parts: parts } }),
    );
  } catch (err) {
    await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId })).catch(() => undefined);
    throw err;
  }
}

/** Objects under the upload prefix last written before `before`, at most `limit` of them. */
export async function listUploadObjects(s3: S3Client, bucket: string, before: Date, limit: number): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: 'uploads/', ContinuationToken: token, MaxKeys: 1000 }),
    );
    for (const o of page.Contents ?? []) if (o.Key && o.LastModified && o.LastModified < before) keys.push(o.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token && keys.length < limit);
  return keys.slice(0, limit);
}

/** Deletes the temporary object; deleting one that is already gone succeeds. */
export async function deleteUploadObject(s3: S3Client, bucket: string, key: string): Promise<void> {
  try {
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  } catch (err) {
    if (!isMissingObject(err)) throw err;
  }
}
