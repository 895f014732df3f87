import type { Readable } from 'node:stream';
import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import { presignBlob, storageFailure, type BlobRange } from '../storage/blob-store.js';
import { ensureInObjectStorage, openBlob, readBlobBytes } from './blobs.js';
import { artifactNotFound, getLiveArtifactByPath, type ArtifactRow } from '../records/artifact-records.js';
import { authorize } from '../access/authorize.js';
import { checkPath } from './artifact-rules.js';
import { downloadName } from './file-names.js';
import { getVersion, noSuchVersion } from './versions.js';

/** Reading stored bytes: which blob an artifact (or one of its versions) is, its bytes, and download URLs. */

/** The bytes of an artifact at one version, as a download needs them. */
export interface BlobRef {
  artId: string;
  hash: string;
  size: number;
  contentType: string;
  /** The artifact's current path. */
  path: string;
  /** The name a download carries when known: the original file name while it still describes the path. */
  filename?: string;
  versionNumber: number;
}

export type ContentTarget = { artId: string; versionNumber?: number } | { path: string };

/**
 * The current bytes (or one version's) of a live artifact: by path in the caller's drive, by id
 * wherever the caller may read it (authorize); 404 otherwise.
 */
export async function artifactContent(rc: RequestContext, target: ContentTarget): Promise<BlobRef> {
  const db = rc.app.orm.em.fork();
  const access = 'path' in target ? undefined : await authorize(rc, { artId: target.artId }, 'read', db);
  const a = access
    ? access.artifact
    : await getLiveArtifactByPath(db, rc.driveId, checkPath((target as { path: string }).path));
  if (!a) throw artifactNotFound();
  const asked = 'versionNumber' in target ? target.versionNumber : undefined;
  // A public artifact is public at its current version only (docs/decisions/sharing.md).
  if (asked !== undefined && asked !== a.version_number && access?.publicOnly) throw noSuchVersion(a.id, asked);
  const at = asked !== undefined ? await getVersion(db, a.drive_id, a.id, asked) : a;
  return {
    artId: a.id,
    hash: at.hash,
    size: Number(at.size_bytes),
    contentType: at.content_type,
    path: a.path,
    filename: downloadName(a.path, (at as { filename?: string | null }).filename ?? a.filename),
    versionNumber: at.version_number,
  };
}

/** A download: the blob's record, read (whole or one range) only once the door knows it sends the bytes. */
export interface OpenedContent {
  blob: BlobRef;
  /** The name a download is saved under (the original name kept at upload, else the path's last segment). */
  filename: string;
  read: (range?: BlobRange) => Promise<Buffer | Readable>;
}

/** GET …/download: the blob of the artifact (or version) the caller may read, and its reader. */
export async function openContent(rc: RequestContext, target: ContentTarget): Promise<OpenedContent> {
  const blob = await artifactContent(rc, target);
  return { blob, filename: blobName(blob), read: (range) => readContent(rc.app, blob, range) };
}

/**
 * The bytes of a blob, whole or one range. Small blobs come from the in-process cache (filled on
 * first read; immutable under their hash, so never stale); larger ones from their row (kept inline) or a stream from
 * S3.
 */
export async function readContent(app: AppContext, blob: BlobRef, range?: BlobRange): Promise<Buffer | Readable> {
  if (app.blobCache.accepts(blob.size)) {
    const whole = await app.blobCache.getOrLoad(blob.hash, () => loadWhole(app, blob));
    return range ? whole.subarray(range.start, range.end + 1) : whole;
  }
  return openBlob(app, blob, range);
}

/** The whole object, checked against the recorded size so a short read is never cached. */
async function loadWhole(app: AppContext, blob: BlobRef): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readBlobBytes(app, blob.hash, blob.size);
  } catch (err) {
    throw err instanceof AppError ? err : storageFailure(err);
  }
  if (bytes.length !== blob.size) throw storageFailure(new Error(`read ${bytes.length} of ${blob.size} bytes`));
  return bytes;
}

export interface DownloadUrl {
  url: string;
  /** true: a short-lived signed object-storage URL; false: the API's proxy download. */
  direct: boolean;
  expiresAt: Date | null;
  blob: BlobRef;
  filename: string;
}

/**
 * A download URL (spec 2.5): a signed S3 URL above the signed-download threshold (or when asked), else the proxy
 * download by id (the version download for a version). A by-path request still gets the by-id URL.
 */
export async function downloadUrl(
  rc: RequestContext,
  target: ContentTarget,
  opts: { signed?: boolean } = {},
): Promise<DownloadUrl> {
  const { config } = rc.app;
  const blob = await artifactContent(rc, target);
  const filename = blobName(blob);
  // `signed`: always the signed URL, for a caller whose credential the proxy download does not take (MCP OAuth).
  if (!opts.signed && blob.size <= config.limits.signedDownloadThresholdBytes) {
    const byId = `${config.http.baseUrl}/v0/artifacts/${blob.artId}`;
    const url =
      'versionNumber' in target && target.versionNumber !== undefined
        ? `${byId}/versions/${blob.versionNumber}/download`
        : `${byId}/download`;
    return { url, direct: false, expiresAt: null, blob, filename };
  }
  const expiresInS = config.durations.downloadUrlS;
  try {
    await ensureInObjectStorage(rc.app, blob);
    const url = await presignBlob(rc.app.s3, config.s3.bucket, blob.hash, {
      expiresInS,
      contentType: blob.contentType,
      filename,
    });
    return { url, direct: true, expiresAt: new Date(Date.now() + expiresInS * 1000), blob, filename };
  } catch (err) {
    throw storageFailure(err);
  }
}

/** The current bytes of an artifact row already authorized (a redeemed share link's artifact). */
export function blobOfRow(a: ArtifactRow): BlobRef {
  return {
    artId: a.id,
    hash: a.hash,
    size: Number(a.size_bytes),
    contentType: a.content_type,
    path: a.path,
    filename: downloadName(a.path, a.filename),
    versionNumber: a.version_number,
  };
}

/** The name a download of this blob carries (the path's last segment when no original name is known). */
export const blobName = (blob: BlobRef) => blob.filename ?? downloadName(blob.path, null);
