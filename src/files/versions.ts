import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { readBlobBytes } from './blobs.js';
import type { RequestContext } from '../platform/request-context.js';
import type { Timestamp } from '../lib/time.js';
import { getLiveArtifact } from '../records/artifact-records.js';
import { decodeCursor, encodeCursor } from '../lib/cursors.js';
import { one, rows, type Db } from '../db/sql.js';
import { authorize } from '../access/authorize.js';

/** Versions of an artifact (spec 2.3): list newest first with keyset cursors, get one, read its bytes. */
export interface VersionRow {
  art_id: string;
  drive_id: string;
  version_number: number;
  size_bytes: string | number;
  hash: string;
  content_type: string;
  actor_name: string | null;
  change_summary: string | null;
  created_at: Timestamp;
  /** The run whose change wrote this version (from its event; listVersions only). */
  run_id?: string | null;
}

/**
 * Versions newest first. A caller who reads the artifact only because it is public sees its current version alone
 * (docs/decisions/sharing.md, "Public means the current version").
 */
export async function listVersions(rc: RequestContext, artId: string, q: { cursor?: string; limit: number }) {
  const db = rc.app.orm.em.fork();
  const access = await authorize(rc, { artId }, 'read', db);
  const before = q.cursor
    ? decodeCursor(q.cursor, (v): v is { v: number } => Number.isInteger((v as { v?: unknown }).v)).v
    : 2 ** 31 - 1;
  const oldest = access.publicOnly ? access.artifact!.version_number : 0;
  const found = await rows<VersionRow>(
    db,
    `select v.*, (select e.run_id from events e where e.drive_id = v.drive_id and e.art_id = v.art_id
         and e.action in ('artifact.created', 'artifact.updated', 'artifact.copied')
         and (e.metadata->>'version_number')::int = v.version_number order by e.seq desc limit 1) as run_id
       from artifact_versions v where v.art_id = ? and v.drive_id = ? and v.version_number < ? and v.version_number >= ?
      order by v.version_number desc limit ?`,
    [artId, access.driveId, before, oldest, q.limit + 1],
  );
  const page = found.slice(0, q.limit);
  return {
    items: page,
    next_cursor: found.length > q.limit ? encodeCursor({ v: page[page.length - 1].version_number }) : null,
    pruned_before: null,
  };
}

/** GET one version record (of an artifact the caller may read). */
export async function readVersion(rc: RequestContext, artId: string, versionNumber: number): Promise<VersionRow> {
  const db = rc.app.orm.em.fork();
  const access = await authorize(rc, { artId }, 'read', db);
  if (access.publicOnly && versionNumber !== access.artifact!.version_number) throw noSuchVersion(artId, versionNumber);
  return getVersion(db, access.driveId, artId, versionNumber);
}

export const noSuchVersion = (artId: string, versionNumber: number) =>
  new AppError('NOT_FOUND', `artifact ${artId} has no version ${versionNumber}`);

/** One version of a live artifact of this drive, or 404 NOT_FOUND. */
export async function getVersion(db: Db, driveId: string, artId: string, versionNumber: number): Promise<VersionRow> {
  await getLiveArtifact(db, driveId, artId);
  const v = await one<VersionRow>(
    db,
    `select * from artifact_versions where art_id = ? and drive_id = ? and version_number = ?`,
    [artId, driveId, versionNumber],
  );
  if (!v) throw noSuchVersion(artId, versionNumber);
  return v;
}

/** The bytes of one version (for indexers and other services); checks that the artifact belongs to the drive. */
/** The bytes stored under a content hash (an artifact row's `hash` is its current version's). */
export function readContentBytes(ctx: AppContext, hash: string, size?: number): Promise<Buffer> {
  return readBlobBytes(ctx, hash, size);
}

export async function readVersionBytes(
  ctx: AppContext,
  driveId: string,
  artId: string,
  versionNumber: number,
): Promise<Buffer> {
  const v = await getVersion(ctx.orm.em.fork(), driveId, artId, versionNumber);
  return readBlobBytes(ctx, v.hash, Number(v.size_bytes));
}
