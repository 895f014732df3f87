import type { AppContext } from '../platform/context.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import { rows } from '../db/sql.js';
import { blobUnavailable, pinBlobStatement, type BlobArrival } from './blobs.js';
import type { WriteTx } from './write-transaction.js';

/**
 * A version's rows in one statement: the artifact's insert or update, its version row and its blob's pin; the storage
 * charge goes with the transaction's next event (WriteTx.charge). docs/decisions/write-path.md.
 */

/** A new artifact at version 1 (its values in column order), or nothing when its path is taken or `unless` holds. */
export const insertArtifactSql = (unless = 'false') => `insert into artifacts
    (id, drive_id, path, content_type, file_type, size_bytes, hash, version_number, labels, metadata, source, visibility, filename)
  select ?, ?, ?, ?, ?, ?, ?, 1, array[?]::text[], ?::jsonb, ?::jsonb, ?, ? where not (${unless})
  on conflict (drive_id, path) where deleted_at is null do nothing
  returning *`;

/** The version row of the artifact row in the CTE `a`, with who made it and why (placeholders or expressions). */
export const versionRowSql = (actor: string, changeSummary: string) => `insert into artifact_versions
  (art_id, drive_id, version_number, size_bytes, hash, content_type, actor_name, change_summary, labels, metadata, filename)
  select id, drive_id, version_number, size_bytes, hash, content_type, ${actor}, ${changeSummary}, labels, metadata, filename
    from a`;

/** Who made a version, how its bytes arrived (pinBlob); `system`: the service's own write, never refused by quota. */
export interface VersionOf {
  actor: string | null;
  changeSummary: string | null;
  arrival?: BlobArrival;
  system?: boolean;
}

/**
 * Runs `rowSql` (an insert or update of one artifact, `returning *`) with its version row and its blob's pin in the
 * same statement, and charges the size with the transaction's next event (WriteTx.charge): one round trip for the three
 * rows. Undefined when `rowSql` wrote no row; a missed pin is 503 (the blob is gone or not stored) and rolls back.
 */
export async function writeVersioned(
  ctx: AppContext,
  w: WriteTx,
  rowSql: string,
  rowParams: unknown[],
  v: VersionOf,
): Promise<ArtifactRow | undefined> {
  return (await versioned(ctx, w, { sql: rowSql, params: rowParams }, v)).written;
}

/**
 * writeVersioned, optionally after `live`: a CTE `live` (one artifact row, locked) that `row` may refer to; its row
 * comes back as `live` when there is one. Lets a PUT lock the path's live row and create it when there is none in one
 * round trip.
 */
export async function versioned(
  ctx: AppContext,
  w: WriteTx,
  row: { sql: string; params: unknown[] },
  v: VersionOf,
  live?: { sql: string; params: unknown[] },
): Promise<{ written?: ArtifactRow; live?: ArtifactRow }> {
  // The pin takes the hash from the row: no blob is touched when the insert found its path taken.
  const pin = pinBlobStatement({ of: 'a' }, v.arrival ?? false);
  const found = await rows<ArtifactRow & { pinned?: number; is_live?: boolean }>(
    w.tx,
    `with ${live ? `live as (${live.sql}), ` : ''}a as (${row.sql}),
     v as (${versionRowSql('?', '?')}),
     p as (${pin.sql})
     select a.*, (select count(*) from p)::int as pinned, false as is_live from a
     ${live ? 'union all select live.*, 0, true from live' : ''}`,
    [...(live?.params ?? []), ...row.params, v.actor, v.changeSummary, ...pin.params],
  );
  const current = found.find((r) => r.is_live);
  const written = found.find((r) => !r.is_live);
  if (written && !written.pinned) throw blobUnavailable();
  for (const r of found) (delete r.pinned, delete r.is_live);
  if (current) return { live: current };
  if (!written) return {};
  const quotaBytes = v.system ? Number.MAX_SAFE_INTEGER : ctx.config.limits.storageQuotaBytes;
  w.charge({ driveId: written.drive_id, bytes: Number(written.size_bytes), quotaBytes });
  return { written };
}
