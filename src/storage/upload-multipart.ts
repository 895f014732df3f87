import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { presignerFor } from './s3.js';

/**
 * Large uploads above one PUT's limit: an S3 multipart upload on the temporary key, opened at
 * begin, with one presigned UploadPart URL per part (each signed with its exact Content-Length).
 * The commit lists the parts itself (the client sends no ETags), checks them, and completes.
 */
export const MAX_PARTS = 10_000;

export interface PartPlan {
  part_number: number;
  size_bytes: number;
}

export function planParts(sizeBytes: number, partBytes: number): PartPlan[] {
  const parts: PartPlan[] = [];
  for (let start = 0, n = 1; start < sizeBytes; start += partBytes, n++)
    parts.push({ part_number: n, size_bytes: Math.min(partBytes, sizeBytes - start) });
  return parts;
}

export async function openMultipartUpload(
  s3: S3Client,
  bucket: string,
  key: string,
  contentType: string,
): Promise<string> {
  const out = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }));
  return out.UploadId!;
}

export async function presignParts(
  s3: S3Client,
  bucket: string,
  key: string,
  uploadId: string,
  parts: PartPlan[],
  expiresInS: number,
): Promise<(PartPlan & { url: string; headers: Record<string, string> })[]> {
  return Promise.all(
    parts.map(async (p) => ({
      ...p,
      url: await getSignedUrl(
        presignerFor(s3),
        new UploadPartCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          PartNumber: p.part_number,
          ContentLength: p.size_bytes,
        }),
        { expiresIn: expiresInS, signableHeaders: new Set(['content-length']) },
      ),
      headers: { 'content-length': String(p.size_bytes) },
    })),
  );
}

/** The parts uploaded so far: number, size and ETag, in part order. */
export async function listUploadedParts(s3: S3Client, bucket: string, key: string, uploadId: string) {
  const parts: { part_number: number; size_bytes: number; etag: string }[] = [];
  let marker: string | undefined;
  for (;;) {
    const out = await s3.send(
      new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }),
    );
    for (const p of out.Parts ?? [])
      parts.push({ part_number: p.PartNumber!, size_bytes: Number(p.Size ?? 0), etag: p.ETag! });
    if (!out.IsTruncated) break;
    marker = out.NextPartNumberMarker;
  }
  return parts.sort((a, b) => a.part_number - b.part_number);
}

export async function completeMultipartUpload(
  s3: S3Client,
  bucket: string,
  key: string,
  uploadId: string,
  parts: { part_number: number; etag: string }[],
) {
  await s3.send(
    new CompleteMultipartUploadCommand({
      Bucket: bucket,
      Key: key,
      UploadId: uploadId,
      MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.part_number, ETag: p.etag })) },
    }),
  );
}

/** Aborts every multipart upload still open on the key (their parts are deleted by the store). */
export async function abortMultipartUploads(s3: S3Client, bucket: string, key: string): Promise<number> {
  const out = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: key }));
  const open = (out.Uploads ?? []).filter((u) => u.Key === key);
  for (const u of open)
    await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: u.UploadId }));
  return open.length;
}
