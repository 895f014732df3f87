import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { one, type Db } from '../db/sql.js';
import type { Timestamp } from '../time.js';

/** An artifact row as stored (its public shape is src/shapes/artifacts.ts). */
export interface ArtifactRow {
  id: string;
  drive_id: string;
  path: string;
  content_type: string;
  file_type: string;
  size_bytes: string | number;
  hash: string;
  version_number: number;
  labels: string[];
  metadata: Record<string, unknown>;
  source: { refs: unknown[] } | null;
  visibility: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
  purge_at: Timestamp | null;
  /** When the current version reached the search index; null until then (set by the indexer, cleared by each new version). */
  indexed_at: Timestamp | null;
  /** When the current version's passages were embedded; null without an embeddings provider and for `_wiki/` pages. */
  embedded_at: Timestamp | null;
  /** The wiki's reading of the content (src/wiki), null until a wiki pass stored one. */
  llm_index?: Record<string, unknown> | null;
  /** The content hash `llm_index` describes. */
  wiki_hash?: string | null;
}

export const artifactNotFound = (message = 'no live artifact') => new AppError('ARTIFACT_NOT_FOUND', message);

/** A live artifact of this drive by id, or 404 ARTIFACT_NOT_FOUND. `lock` adds FOR UPDATE (inside a transaction). */
export async function getLiveArtifact(db: Db, driveId: string, artId: string, lock = false): Promise<ArtifactRow> {
  const r = await one<ArtifactRow>(
    db,
    `select * from artifacts where id = ? and drive_id = ? and deleted_at is null${lock ? ' for update' : ''}`,
    [artId, driveId],
  );
  if (!r) throw artifactNotFound();
  return r;
}

export async function getLiveArtifactByPath(db: Db, driveId: string, path: string, lock = false): Promise<ArtifactRow | undefined> {
  return one<ArtifactRow>(db, `select * from artifacts where drive_id = ? and path = ? and deleted_at is null${lock ? ' for update' : ''}`, [driveId, path]);
}

/** Any artifact of this drive by id, live or in trash (not purged). */
export async function getArtifactAnyState(db: Db, driveId: string, artId: string, lock = false): Promise<ArtifactRow | undefined> {
  return one<ArtifactRow>(db, `select * from artifacts where id = ? and drive_id = ?${lock ? ' for update' : ''}`, [artId, driveId]);
}

/**
 * For other services (search indexing, viewer): the record of one artifact of a drive, or null when
 * the drive has no such artifact. Trashed artifacts only with `includeTrashed`.
 */
export async function findArtifactRecord(
  ctx: AppContext,
  driveId: string,
  artId: string,
  opts: { includeTrashed?: boolean } = {},
): Promise<ArtifactRow | null> {
  const db = ctx.orm.em.fork();
  const row = await one<ArtifactRow>(db, `select * from artifacts where id = ? and drive_id = ?${opts.includeTrashed ? '' : ' and deleted_at is null'}`, [artId, driveId]);
  return row ?? null;
}

/** The indexer's receipt: `versionNumber` is searchable. A newer version keeps its nulls (its own request follows). */
export async function markArtifactIndexed(ctx: AppContext, driveId: string, artId: string, versionNumber: number, embedded: boolean): Promise<void> {
  await ctx.pool.query(
    `update artifacts set indexed_at = now(), embedded_at = case when $4 then now() end
      where id = $1 and drive_id = $2 and version_number = $3`,
    [artId, driveId, versionNumber, embedded],
  );
}
