import { AppError } from '../lib/errors.js';
import { one, rows, type Db } from '../db/sql.js';

/**
 * Storage a drive uses: the sum of `size_bytes` over every version of its live and trashed
 * artifacts (a copy counts in full although bytes are shared). Kept as a counter in
 * `drive_storage`, changed in the same transaction as the versions it counts.
 */
export async function storageUsedBytes(db: Db, driveId: string): Promise<number> {
  const r = await one<{ used_bytes: string }>(db, `select used_bytes from drive_storage where drive_id = ?`, [driveId]);
  return r ? Number(r.used_bytes) : 0;
}

/** Bytes held by the drive's open large-upload sessions: they count against quota until commit or expiry. */
const OPEN_RESERVATIONS_SQL = `(select coalesce(sum(reserved_bytes), 0) from upload_sessions
  where drive_id = ? and state = 'begun' and expires_at > now())`;

export async function reservedBytes(db: Db, driveId: string): Promise<number> {
  const r = await one<{ bytes: string }>(db, `select ${OPEN_RESERVATIONS_SQL} as bytes`, [driveId]);
  return Number(r?.bytes ?? 0);
}

/** Used and reserved bytes in one query: the early quota check before any byte is stored. */
export async function storageCommitted(db: Db, driveId: string): Promise<{ used: number; reserved: number }> {
  const r = await one<{ used: string | null; reserved: string }>(
    db,
    `select (select used_bytes from drive_storage where drive_id = ?) as used, ${OPEN_RESERVATIONS_SQL} as reserved`,
    [driveId, driveId],
  );
  return { used: Number(r?.used ?? 0), reserved: Number(r?.reserved ?? 0) };
}

/**
 * Adding bytes to the drive's usage if usage plus open upload reservations stays within quota, else 413
 * STORAGE_QUOTA_EXCEEDED; locks the counter row until commit. Two steps, so a version's statement can carry the first
 * (src/files/artifacts.ts addVersion): reserveStatement, then reserveStorageOnMiss when it added nothing.
 */
/** The first step (`returning used_bytes`: no row, not added), to fold into a caller's statement. */
export function reserveStatement(driveId: string, bytes: number, quotaBytes: number) {
  return {
    sql: `update drive_storage set used_bytes = used_bytes + ?::int8
        where drive_id = ? and used_bytes + ?::int8 + ${OPEN_RESERVATIONS_SQL} <= ?::int8 returning used_bytes`,
    params: [bytes, driveId, bytes, driveId, quotaBytes],
  };
}

/** After reserveStatement added nothing: creates the drive's counter row if missing and tries once more, else 413. */
export async function reserveStorageOnMiss(tx: Db, driveId: string, bytes: number, quotaBytes: number): Promise<void> {
  const add = reserveStatement(driveId, bytes, quotaBytes);
  // The drive's first write creates its counter row (or waits for a concurrent first write's); then try once more.
  await rows(tx, `insert into drive_storage (drive_id) values (?) on conflict (drive_id) do nothing`, [driveId]);
  if (await one(tx, add.sql, add.params)) return;
  throw quotaExceeded(await storageUsedBytes(tx, driveId), quotaBytes, bytes);
}

export function quotaExceeded(used: number, quotaBytes: number, bytes: number): AppError {
  return new AppError(
    'STORAGE_QUOTA_EXCEEDED',
    `storage quota exceeded: ${used} of ${quotaBytes} bytes used, ${bytes} more requested`,
    {
      used_bytes: used,
      limit_bytes: quotaBytes,
      requested_bytes: bytes,
    },
  );
}

export async function releaseStorage(tx: Db, driveId: string, bytes: number): Promise<void> {
  if (bytes <= 0) return;
  await rows(tx, `update drive_storage set used_bytes = greatest(0, used_bytes - ?::int8) where drive_id = ?`, [
    bytes,
    driveId,
  ]);
}
