import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { hasPrefix, newId } from '../lib/ids.js';
import { storageFailure } from '../storage/blob-store.js';
import { CRC32C_BASE64 } from '../storage/crc32c.js';
import { MAX_PARTS, openMultipartUpload, planParts, presignParts, type PartPlan } from '../storage/upload-multipart.js';
import { deleteUploadObject, presignUploadPut, uploadObjectKey } from '../storage/upload-store.js';
import { signalUploadCommitted, startUploadSession } from '../temporal/start.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import type { RequestContext } from '../platform/request-context.js';
import {
  checkNotWiki,
  checkPath,
  checkActorName,
  checkLabels,
  checkMetadata,
  checkSource,
  type Source,
} from '../files/artifact-rules.js';
import { keptFilename } from '../files/file-names.js';
import { DEFAULT_CONTENT_TYPE, preflightPut, putStoredArtifact } from '../files/artifacts.js';
import { writeTransaction } from '../files/write-transaction.js';
import { storageCommitted } from '../files/quota.js';
import { verifyUploadedObject, storeUploadedBlob, type VerifiedUpload } from './upload-content.js';
import {
  claimForCommit,
  closeUploadSession,
  getUploadSession,
  insertUploadSession,
  markExpired,
  putInputOf,
  quotaExceeded,
  recordCommitResult,
  uploadExpired,
  uploadNotFound,
  type UploadSessionRow,
} from './upload-sessions.js';

/**
 * Large uploads (spec 3.6, 4.7): begin validates what a buffered PUT validates, reserves quota,
 * starts the session's workflow and hands out a presigned PUT; commit verifies the object and
 * creates the artifact (or its new version) from the frozen fields, exactly once.
 */
export interface BeginInput {
  driveId: string;
  path: string;
  sizeBytes: number;
  contentType?: string;
  crc32c?: string;
  /** null or undefined: keep the existing value on overwrite, the create default on a new path. */
  labels?: unknown;
  metadata?: unknown;
  source?: unknown;
  actorName?: string | null;
  changeSummary?: string | null;
  ifMatch?: number | null;
  /** The original file name (X-Drive-Filename on begin). */
  filename?: string;
}

const TEMPORAL_CALL_DEADLINE_MS = 5000;
const CONTENT_TYPE_RE = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

export function checkLabelList(v: unknown): string[] {
  if (!Array.isArray(v) || v.some((l) => typeof l !== 'string' || l === '' || l.includes(','))) {
    throw new AppError(
      'INVALID_LABELS',
      'labels must be an array of lowercase [a-z0-9_-]+ strings, at most 64 chars each',
    );
  }
  return checkLabels(v as string[]);
}

/** Effective per-artifact cap of a large upload: the setting, bounded by what 10 000 parts can carry. */
export const largeUploadCap = (ctx: AppContext) =>
  Math.min(ctx.config.limits.largeUploadMaxBytes, ctx.config.limits.uploadPartBytes * MAX_PARTS);

function validateBegin(ctx: AppContext, b: BeginInput) {
  checkPath(b.path);
  checkNotWiki(b.path);
  const cap = largeUploadCap(ctx);
  if (b.sizeBytes > cap) {
    throw new AppError('ARTIFACT_TOO_LARGE', `size_bytes ${b.sizeBytes} is over the ${cap}-byte per-artifact cap`, {
      limit_bytes: cap,
    });
  }
  if (b.contentType !== undefined && !CONTENT_TYPE_RE.test(b.contentType))
    throw new AppError('INVALID_CONTENT_TYPE', 'content_type must be 1-255 printable ASCII characters');
  if (b.crc32c !== undefined && !CRC32C_BASE64.test(b.crc32c))
    throw new AppError(
      'INVALID_CRC32C',
      'crc32c must be the base64 of the 4-byte big-endian CRC-32C (as S3 and GCS publish it)',
    );
  if (b.changeSummary && b.changeSummary.length > 1000)
    throw new AppError('INVALID_CHANGE_SUMMARY', 'change_summary is at most 1000 characters');
  return {
    labels: b.labels == null ? null : checkLabelList(b.labels),
    metadata: b.metadata == null ? null : checkMetadata(b.metadata),
    source: b.source == null ? null : (checkSource(b.source) as Source),
    actor: checkActorName(b.actorName),
    filename: keptFilename(b.path, b.filename) ?? null,
  };
}

/** POST /v0/uploads: validates and freezes the write, reserves quota, starts the session timer, presigns the upload. */
export interface OpenedUpload {
  uploadId: string;
  expiresAt: Date;
  maxBytes: number;
  /** The presigned PUT, or null when the size needs parts (each presigned in `parts`). */
  url: string | null;
  headers: Record<string, string>;
  parts?: (PartPlan & { url: string; headers: Record<string, string> })[];
}

export async function beginUpload(rc: RequestContext, input: Omit<BeginInput, 'driveId'>): Promise<OpenedUpload> {
  const ctx = rc.app;
  // actor_name, else the request's (checked) X-Drive-Actor.
  const b: BeginInput = { ...input, driveId: rc.driveId, actorName: input.actorName ?? rc.actor };
  const frozen = validateBegin(ctx, b);
  // Cheap check first so a hopeless begin starts no workflow; the locked check at insert decides.
  const db = ctx.orm.em.fork();
  const { used, reserved } = await storageCommitted(db, b.driveId);
  const quota = ctx.config.limits.storageQuotaBytes;
  if (used + reserved + b.sizeBytes > quota) throw quotaExceeded(used, reserved, b.sizeBytes, quota);

  const uploadId = newId('upl');
  const ttlS = ctx.config.durations.uploadSessionS;
  const expiresAt = new Date(Date.now() + ttlS * 1000);
  // The timer exists before the session does: a crash after this leaves a workflow that finds no row, never a row
  // without a timer.
  try {
    // Bounded: with Temporal down the client would otherwise retry for half a minute on the request path.
    await ctx.temporal.withDeadline(Date.now() + TEMPORAL_CALL_DEADLINE_MS, () =>
      startUploadSession(
        { temporal: ctx.temporal, taskQueue: ctx.config.temporal.taskQueue },
        { uploadId, driveId: b.driveId, expiresAtMs: expiresAt.getTime() },
      ),
    );
  } catch (err) {
    ctx.logger.error({ err, upload_id: uploadId }, 'upload session workflow did not start');
    throw new AppError('UPLOADS_UNAVAILABLE', 'upload sessions are unavailable right now; retry shortly');
  }
  const { bucket } = ctx.config.s3;
  const key = uploadObjectKey(b.driveId, uploadId);
  const contentType = b.contentType ?? DEFAULT_CONTENT_TYPE;
  const partBytes = b.sizeBytes > ctx.config.limits.uploadSinglePutMaxBytes ? ctx.config.limits.uploadPartBytes : null;
  // A multipart upload left open by a failure below is aborted by the workflow when it closes the session.
  const multipartId = partBytes
    ? await openMultipartUpload(ctx.s3, bucket, key, contentType).catch((err) => Promise.reject(storageFailure(err)))
    : null;
  await insertUploadSession(ctx, {
    id: uploadId,
    drive_id: b.driveId,
    path: b.path,
    size_bytes: b.sizeBytes,
    content_type: b.contentType ?? null,
    crc32c: b.crc32c ?? null,
    labels: frozen.labels,
    metadata: frozen.metadata,
    source: frozen.source,
    actor_name: frozen.actor,
    change_summary: b.changeSummary || null,
    if_match: b.ifMatch ?? null,
    filename: frozen.filename,
    expires_at: expiresAt,
    multipart_upload_id: multipartId,
    part_bytes: partBytes,
  });
  const opened = { uploadId, expiresAt, maxBytes: b.sizeBytes };
  if (multipartId && partBytes) {
    const parts = await presignParts(ctx.s3, bucket, key, multipartId, planParts(b.sizeBytes, partBytes), ttlS);
    return { ...opened, url: null, headers: {}, parts };
  }
  const signed = await presignUploadPut(ctx.s3, bucket, key, { sizeBytes: b.sizeBytes, contentType, expiresInS: ttlS });
  return { ...opened, url: signed.url, headers: signed.headers };
}

/**
 * Expires a session found past its expiry (the timer may be late) and cleans up; the workflow repeats this harmlessly.
 */
async function expireNow(ctx: AppContext, s: UploadSessionRow): Promise<never> {
  await closeUploadSession(ctx, { uploadId: s.id, driveId: s.drive_id, expire: true }).catch((err) =>
    ctx.logger.warn({ err, upload_id: s.id }, 'expired upload cleanup failed; the session workflow retries it'),
  );
  throw uploadExpired();
}

/** A session that already ended answers for itself: the same record once committed, 410 once expired. */
async function endedOutcome(ctx: AppContext, s: UploadSessionRow): Promise<ArtifactRow | undefined> {
  if (s.state === 'committed') return s.result!;
  if (s.state === 'expired' || s.past_expiry) return expireNow(ctx, s);
  return undefined;
}

/** POST /v0/uploads/{id}/commit (idempotent): verifies the object and creates the artifact or its new version. */
export async function commitUpload(rc: RequestContext, uploadId: string): Promise<ArtifactRow> {
  // Any malformed id is simply an unknown upload (404), like another drive's.
  if (!hasPrefix(uploadId, 'upl')) throw uploadNotFound();
  const ctx = rc.app;
  const { driveId } = rc;
  const s = await getUploadSession(ctx.orm.em.fork(), driveId, uploadId);
  const ended = await endedOutcome(ctx, s);
  if (ended) return ended;
  const input = putInputOf(s);
  await preflightPut(ctx, input);

  let verified: VerifiedUpload;
  let written: boolean;
  try {
    verified = await verifyUploadedObject(ctx, {
      objectKey: s.object_key,
      sizeBytes: Number(s.size_bytes),
      crc32c: s.crc32c,
      multipart: s.multipart_upload_id ? { uploadId: s.multipart_upload_id, partBytes: Number(s.part_bytes) } : null,
    });
    ({ written } = await storeUploadedBlob(ctx, driveId, s.object_key, verified));
  } catch (err) {
    // The session may have ended meanwhile (its expiry deletes the object we were reading).
    const again = await endedOutcome(ctx, await getUploadSession(ctx.orm.em.fork(), driveId, uploadId));
    if (again) return again;
    throw err instanceof AppError ? err : storageFailure(err);
  }

  const outcome = await writeTransaction(ctx, async (w) => {
    const locked = await getUploadSession(w.tx, driveId, uploadId, true);
    if (locked.state === 'committed') return { result: locked.result!, fresh: false };
    if (locked.state === 'expired' || locked.past_expiry) {
      await markExpired(w.tx, uploadId);
      return undefined;
    }
    await claimForCommit(w.tx, uploadId);
    const result = await putStoredArtifact(ctx, w, input, verified, written);
    await recordCommitResult(w.tx, uploadId, result);
    return { result, fresh: true };
  });
  if (!outcome) return expireNow(ctx, s);
  if (outcome.fresh) await afterCommit(ctx, s);
  return outcome.result;
}

/**
 * Best effort after the commit is durable: drop the temporary object, let the workflow finish early. Either failing is
 * repaired by the workflow's own timer.
 */
async function afterCommit(ctx: AppContext, s: UploadSessionRow): Promise<void> {
  await deleteUploadObject(ctx.s3, ctx.config.s3.bucket, s.object_key).catch((err) =>
    ctx.logger.warn({ err, upload_id: s.id }, 'temporary upload object not deleted; the session workflow deletes it'),
  );
  await ctx.temporal
    .withDeadline(Date.now() + TEMPORAL_CALL_DEADLINE_MS, () => signalUploadCommitted(ctx.temporal, s.id))
    .catch((err) => ctx.logger.warn({ err, upload_id: s.id }, 'upload workflow not signalled; it ends at its timer'));
}
