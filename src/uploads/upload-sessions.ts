import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { abortMultipartUploads } from '../storage/upload-multipart.js';
import { deleteUploadObject, uploadObjectKey } from '../storage/upload-store.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import type { PutInput } from '../files/artifacts.js';
import { pendingWriteInput, type PendingWriteColumns } from './pending-write.js';
import { one, rows, transaction, type Db } from '../db/sql.js';
import { reservedBytes } from '../files/quota.js';

/**
 * Rows of `upload_sessions` and the one state change everybody races for: leaving `begun`.
 * A begun session reserves its `size_bytes` against the drive's quota until it expires
 * (by its timer, or by its expires_at when the timer is late) or commits.
 */
export type UploadState = 'begun' | 'committed' | 'expired';

export interface UploadSessionRow extends PendingWriteColumns {
  id: string;
  size_bytes: string | number;
  crc32c: string | null;
  object_key: string;
  /** Set when the object goes up in parts (size over one PUT's limit): the S3 multipart upload and its part size. */
  multipart_upload_id: string | null;
  part_bytes: string | number | null;
  state: UploadState;
  reserved_bytes: string | number;
  result: ArtifactRow | null;
  expires_at: string | Date;
  /** Computed by the queries below with the database clock: expires_at <= now(). */
  past_expiry: boolean;
}

export type NewUploadSession = Omit<
  UploadSessionRow,
  'state' | 'result' | 'past_expiry' | 'reserved_bytes' | 'object_key' | 'size_bytes' | 'expires_at' | 'part_bytes'
> & {
  size_bytes: number;
  expires_at: Date;
  part_bytes: number | null;
};

export const uploadNotFound = () => new AppError('UPLOAD_NOT_FOUND', 'no such upload for this drive');
export const uploadExpired = () => new AppError('UPLOAD_EXPIRED', 'the upload session has expired; begin a new upload');

const SELECT = `select *, expires_at <= now() as past_expiry from upload_sessions`;

export async function getUploadSession(
  db: Db,
  driveId: string,
  uploadId: string,
  lock = false,
): Promise<UploadSessionRow> {
  const row = await one<UploadSessionRow>(db, `${SELECT} where id = ? and drive_id = ?${lock ? ' for update' : ''}`, [
    uploadId,
    driveId,
  ]);
  if (!row) throw uploadNotFound();
  return row;
}

/** Bytes held by this drive's open sessions (begun and not yet past expiry). */

/**
 * Inserts a begun session if the drive's usage plus its open reservations plus this size stays
 * within quota (402 otherwise). The drive's usage counter row is locked, so concurrent begins
 * (and buffered uploads) of one drive are checked one at a time.
 */
export async function insertUploadSession(ctx: AppContext, s: NewUploadSession): Promise<void> {
  const quota = ctx.config.limits.storageQuotaBytes;
  await transaction(ctx, async (tx) => {
    await rows(tx, `insert into drive_storage (drive_id) values (?) on conflict (drive_id) do nothing`, [s.drive_id]);
    const usage = await one<{ used_bytes: string }>(
      tx,
      `select used_bytes from drive_storage where drive_id = ? for update`,
      [s.drive_id],
    );
    const used = Number(usage?.used_bytes ?? 0);
    const reserved = await reservedBytes(tx, s.drive_id);
    if (used + reserved + s.size_bytes > quota) throw quotaExceeded(used, reserved, s.size_bytes, quota);
    await rows(
      tx,
      `insert into upload_sessions (id, drive_id, path, size_bytes, content_type, crc32c, labels, metadata, source, actor_name, change_summary,
         if_match, object_key, multipart_upload_id, part_bytes, reserved_bytes, expires_at, filename)
       values (?, ?, ?, ?, ?, ?, ${s.labels ? 'array[?]::text[]' : '?'}, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        s.id,
        s.drive_id,
        s.path,
        s.size_bytes,
        s.content_type,
        s.crc32c,
        s.labels ?? null,
        s.metadata ? JSON.stringify(s.metadata) : null,
        s.source ? JSON.stringify(s.source) : null,
        s.actor_name,
        s.change_summary,
        s.if_match,
        uploadObjectKey(s.drive_id, s.id),
        s.multipart_upload_id,
        s.part_bytes,
        s.size_bytes,
        s.expires_at,
        s.filename ?? null,
      ],
    );
  });
}

export function quotaExceeded(used: number, reserved: number, requested: number, quota: number) {
  return new AppError(
    'STORAGE_QUOTA_EXCEEDED',
    `storage quota would be exceeded: ${used} bytes used and ${reserved} reserved of ${quota}, ${requested} more requested`,
    {
      used_bytes: used,
      reserved_bytes: reserved,
      limit_bytes: quota,
      requested_bytes: requested,
    },
  ).withStatus(402);
}

/** The frozen begin fields as the artifact write they stand for (null = field omitted at begin). */
export const putInputOf = (s: UploadSessionRow): PutInput => pendingWriteInput(s);

/** begun -> expired, only if still begun (inside the caller's transaction). True when this call made the change. */
export async function markExpired(tx: Db, uploadId: string): Promise<boolean> {
  const r = await one(
    tx,
    `update upload_sessions set state = 'expired', finished_at = now() where id = ? and state = 'begun' returning id`,
    [uploadId],
  );
  return r !== undefined;
}

/** begun -> committed with the artifact record the commit answered (inside the commit's transaction). */
/**
 * Inside the commit transaction, before the artifact is written: the session leaves `begun`, so its
 * reservation stops counting against quota while the new version's bytes take its place.
 */
export async function claimForCommit(tx: Db, uploadId: string): Promise<void> {
  await rows(
    tx,
    `update upload_sessions set state = 'committed', finished_at = now() where id = ? and state = 'begun'`,
    [uploadId],
  );
}

export async function recordCommitResult(tx: Db, uploadId: string, result: ArtifactRow): Promise<void> {
  await rows(tx, `update upload_sessions set art_id = ?, version_number = ?, result = ?::jsonb where id = ?`, [
    result.id,
    result.version_number,
    JSON.stringify(result),
    uploadId,
  ]);
}

/**
 * The session's end, run by its workflow (timer or commit signal) and by a commit that finds the
 * session past expiry: `expire` turns a still-begun session into expired (which releases its
 * reservation); either way the temporary object (and any multipart upload still open on its key)
 * is deleted, since after either end nobody reads it again. Idempotent, and safe when the row is gone (drive purged) or
 * the object never existed.
 */
export async function closeUploadSession(
  ctx: AppContext,
  s: { uploadId: string; driveId: string; expire: boolean },
): Promise<{ state: UploadState | 'gone'; expiredNow: boolean }> {
  const outcome = await transaction(ctx, async (tx) => {
    const expiredNow = s.expire ? await markExpired(tx, s.uploadId) : false;
    const row = await one<{ state: UploadState }>(tx, `select state from upload_sessions where id = ?`, [s.uploadId]);
    return { state: row?.state ?? ('gone' as const), expiredNow };
  });
  if (outcome.state !== 'begun') {
    const key = uploadObjectKey(s.driveId, s.uploadId);
    await abortMultipartUploads(ctx.s3, ctx.config.s3.bucket, key);
    await deleteUploadObject(ctx.s3, ctx.config.s3.bucket, key);
  }
  return outcome;
}
