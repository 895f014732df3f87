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
const openReservationsSql = (driveId = '?') => `(select coalesce(sum(reserved_bytes), 0) from upload_sessions
  where drive_id = ${driveId} and state = 'begun' and expires_at > now())`;
const OPEN_RESERVATIONS_SQL = openReservationsSql();

/** SQL true when `bytes` more fit the drive's quota: usage plus open reservations (placeholders of the caller). */
export const fitsQuotaSql = (p: { driveId: string; bytes: string; quotaBytes: string }) =>
  `coalesce((select used_bytes from drive_storage where drive_id = ${p.driveId}), 0) + ${openReservationsSql(p.driveId)}
     + ${p.bytes}::int8 <= ${p.quotaBytes}::int8`;

/** The 413 of an early check (usage and reservations read after the miss, for the error's figures). */
export async function earlyQuotaRefused(db: Db, c: StorageCharge): Promise<AppError> {
  const { used, reserved } = await storageCommitted(db, c.driveId);
  return quotaExceeded(used + reserved, c.quotaBytes, c.bytes);
}

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

/** A charge of `bytes` to a drive's usage, refused (413) when usage plus open reservations would pass `quotaBytes`. */
export interface StorageCharge {
  driveId: string;
  bytes: number;
  quotaBytes: number;
}

/**
 * A charge as one upsert to fold into a caller's statement (`returning used_bytes`: no row, refused): creates the
 * drive's counter row on its first write, else adds to it, in both cases only within quota. The row stays locked until
 * commit, so concurrent charges of one drive never pass the quota together. Being an upsert, it never misses a row that
 * a concurrent first write is creating (it waits for that write), so a miss means over quota and nothing else.
 */
export function chargeStatement(c: StorageCharge) {
  return {
    sql: chargeSql({ driveId: '?', bytes: '?', quotaBytes: '?' }),
    params: [c.driveId, c.bytes, c.bytes, c.driveId, c.quotaBytes, c.driveId, c.quotaBytes],
  };
}

/**
 * The charge's SQL with the placeholders of the caller's choice (`?` in this order: drive, bytes, bytes, drive, quota,
 * drive, quota; or numbered ones, each repeated). `after`: a CTE the charge waits for (it is read first), so a
 * statement can lock its artifact row before the drive's counter, the order every multi-statement write takes them in.
 * `requires`: a CTE that must have a row (also read first), else nothing is charged and the statement writes nothing.
 */
export function chargeSql(p: {
  driveId: string;
  bytes: string;
  quotaBytes: string;
  after?: string;
  requires?: string;
}): string {
  return `insert into drive_storage as s (drive_id, used_bytes)
    select ${p.driveId}, ${p.bytes}::int8 ${p.after ? `from (select count(*) from ${p.after}) as ${p.after}_first` : ''}
     where ${p.requires ? `exists (select from ${p.requires}) and ` : ''}
       ${p.bytes}::int8 + ${openReservationsSql(p.driveId)} <= ${p.quotaBytes}::int8
    on conflict (drive_id) do update set used_bytes = s.used_bytes + excluded.used_bytes
    where s.used_bytes + excluded.used_bytes + ${openReservationsSql(p.driveId)} <= ${p.quotaBytes}::int8
    returning s.used_bytes`;
}

/** The 413 of a refused charge (read after the miss, for the error's figures). */
export async function chargeRefused(db: Db, c: StorageCharge): Promise<AppError> {
  return quotaExceeded(await storageUsedBytes(db, c.driveId), c.quotaBytes, c.bytes);
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
