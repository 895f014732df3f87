import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ok, type DriveClient } from './client.js';
import { DriveError } from './errors.js';
import { filenameHeader } from './names.js';
import type { ArtifactOut, UploadBeginOut } from './types.js';

/** The server's buffered-upload limit by default (spec 8: a PUT body is at most 50 MB). */
export const BUFFERED_UPLOAD_LIMIT = 50 * 1024 * 1024;

export interface UploadOptions {
  contentType?: string;
  labels?: string[];
  metadata?: Record<string, unknown>;
  changeSummary?: string;
  /** Expected current version (412 when it differs). */
  ifMatch?: number;
  /**
   * With an older ifMatch: merge three-way with the current version against version ifMatch (X-Drive-Merge);
   * 409 MERGE_CONFLICT with the hunks when both changed the same lines. Always one PUT (never a large upload).
   */
  merge?: boolean;
  /** The original file name the path was mapped from (sent as X-Drive-Filename, kept as `filename`). */
  filename?: string;
  /** Files above this many bytes go through /v0/uploads (begin, PUT to object storage, commit). */
  bufferedLimit?: number;
  /** Bytes sent so far, of the total. */
  onProgress?: (sent: number, total: number) => void;
}

/** Uploads bytes held in memory with one PUT /v0/artifacts/{path}. */
export async function uploadBytes(
  client: DriveClient,
  path: string,
  bytes: Uint8Array,
  options: UploadOptions = {},
): Promise<ArtifactOut> {
  const header: Record<string, string> = { 'content-type': options.contentType ?? 'application/octet-stream' };
  if (options.labels) header['x-drive-labels'] = options.labels.join(',');
  if (options.metadata) header['x-drive-metadata'] = JSON.stringify(options.metadata);
  if (options.changeSummary) header['x-drive-change-summary'] = options.changeSummary;
  if (options.ifMatch !== undefined) header['if-match'] = String(options.ifMatch);
  if (options.merge) header['x-drive-merge'] = 'three-way';
  if (options.filename !== undefined) header['x-drive-filename'] = filenameHeader(options.filename);
  options.onProgress?.(0, bytes.byteLength);
  const artifact = await ok(
    client.api.PUT('/v0/artifacts/{path}', {
      params: { path: { path }, header },
      // Raw bytes, not JSON: the body goes out as given.
      body: bytes as unknown as string,
      bodySerializer: (body: unknown) => body as BodyInit,
    }),
  );
  options.onProgress?.(bytes.byteLength, bytes.byteLength);
  return artifact;
}

/** Uploads a local file: one PUT up to the buffered limit, a large upload above it. */
export async function uploadFile(
  client: DriveClient,
  path: string,
  file: string,
  options: UploadOptions = {},
): Promise<ArtifactOut> {
  const { size } = await stat(file);
  if (options.merge || size <= (options.bufferedLimit ?? BUFFERED_UPLOAD_LIMIT))
    return uploadBytes(client, path, await readFile(file), options);
  return uploadLarge(client, path, file, size, options);
}

/** Begin (reserve quota, presigned URLs), PUT the bytes straight to object storage, commit (spec 4.7). */
async function uploadLarge(
  client: DriveClient,
  path: string,
  file: string,
  size: number,
  options: UploadOptions,
): Promise<ArtifactOut> {
  const begun: UploadBeginOut = await ok(
    client.api.POST('/v0/uploads', {
      body: {
        path,
        size_bytes: size,
        content_type: options.contentType,
        labels: options.labels,
        metadata: options.metadata,
        change_summary: options.changeSummary,
        if_match: options.ifMatch,
      },
      params: {
        header: options.filename !== undefined ? { 'x-drive-filename': filenameHeader(options.filename) } : {},
      },
    }),
  );
  let sent = 0;
  const progress = (n: number) => options.onProgress?.((sent += n), size);
  progress(0);
  if (begun.upload_url) {
    await putRange(begun.upload_url, begun.headers, file, 0, size, progress);
  } else {
    let start = 0;
    for (const part of begun.parts ?? []) {
      await putRange(part.url, { ...begun.headers, ...part.headers }, file, start, part.size_bytes, progress);
      start += part.size_bytes;
    }
  }
  return ok(client.api.POST('/v0/uploads/{upload_id}/commit', { params: { path: { upload_id: begun.upload_id } } }));
}

/**
 * PUTs `length` bytes of the file from `start` to a presigned URL, streamed from disk with a Content-Length
 * (object storage refuses chunked bodies), retried up to three times when the store fails or drops us.
 */
async function putRange(
  url: string,
  headers: Record<string, string>,
  file: string,
  start: number,
  length: number,
  progress: (n: number) => void,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    let counted = 0;
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const target = new URL(url);
        const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
          method: 'PUT',
          headers: { ...headers, 'content-length': String(length) },
        });
        req.on('response', (res) => (res.resume(), res.on('end', () => resolve(res.statusCode ?? 0))));
        req.on('error', reject);
        const body = createReadStream(file, { start, end: start + length - 1 });
        body.on('data', (chunk) => (progress(chunk.length), (counted += chunk.length)));
        body.on('error', reject);
        if (length === 0) req.end();
        else body.pipe(req);
      });
      if (status >= 200 && status < 300) return;
      if (status < 500 || attempt >= 3)
        throw new DriveError(status, 'STORAGE_FAILURE', `upload PUT answered ${status}`);
    } catch (err) {
      if (err instanceof DriveError || attempt >= 3)
        throw err instanceof DriveError ? err : new DriveError(0, 'NETWORK_ERROR', (err as Error).message);
    }
    progress(-counted);
  }
}
