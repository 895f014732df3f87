import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { one, type Db } from '../db/sql.js';
import type { Timestamp } from '../lib/time.js';

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
  /** The name a person gave the file when it was mapped to `path` (X-Drive-Filename); null when none was given. */
  filename: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
  purge_at: Timestamp | null;
  /**
   * When the current version reached the search index; null until then (set by the indexer, cleared by each new
   * version).
   */
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

export async function getLiveArtifactByPath(
  db: Db,
  driveId: string,
  path: string,
  lock = false,
): Promise<ArtifactRow | undefined> {
  return one<ArtifactRow>(
    db,
    `select * from artifacts where drive_id = ? and path = ? and deleted_at is null${lock ? ' for update' : ''}`,
    [driveId, path],
  );
}

/** Any artifact of this drive by id, live or in trash (not purged). */
export async function getArtifactAnyState(
  db: Db,
  driveId: string,
  artId: string,
  lock = false,
): Promise<ArtifactRow | undefined> {
  return one<ArtifactRow>(db, `select * from artifacts where id = ? and drive_id = ?${lock ? ' for update' : ''}`, [
    artId,
    driveId,
  ]);
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
  const row = await one<ArtifactRow>(
    db,
    `select * from artifacts where id = ? and drive_id = ?${opts.includeTrashed ? '' : ' and deleted_at is null'}`,
    [artId, driveId],
  );
  return row ?? null;
}

/**
 * For the search indexer: the live rows of these artifacts (on live drives) in one query. Trashed,
 * purged and soft-deleted-drive artifacts are absent.
 */
export async function findLiveArtifactRecords(
  ctx: AppContext,
  targets: { driveId: string; artId: string }[],
): Promise<(ArtifactRow & { inline_content: Buffer | null })[]> {
  if (!targets.length) return [];
  // The bytes of a small file kept inline come with its row: indexing it needs no statement or S3 read of its own.
  const { rows } = await ctx.pool.query<ArtifactRow & { inline_content: Buffer | null }>(
    `select a.*, (select b.content from blobs b where b.hash = a.hash) as inline_content from artifacts a
       join unnest($1::text[], $2::text[]) as t(drive_id, art_id) on a.drive_id = t.drive_id and a.id = t.art_id
       join drives d on d.id = a.drive_id and d.deleted_at is null
      where a.deleted_at is null`,
    [targets.map((t) => t.driveId), targets.map((t) => t.artId)],
  );
  return rows;
}

/** The indexer's receipt: these versions are searchable. A newer version keeps its nulls (its own request follows). */
export async function markArtifactsIndexed(
  ctx: AppContext,
  versions: { driveId: string; artId: string; versionNumber: number; embedded: boolean }[],
): Promise<void> {
  if (!versions.length) return;
  await ctx.pool.query(
    `update artifacts a set indexed_at = now(), embedded_at = case when v.embedded then now() end
       from unnest($1::text[], $2::text[], $3::int[], $4::bool[]) as v(drive_id, art_id, version_number, embedded)
      where a.id = v.art_id and a.drive_id = v.drive_id and a.version_number = v.version_number`,
    [
      versions.map((v) => v.driveId),
      versions.map((v) => v.artId),
      versions.map((v) => v.versionNumber),
      versions.map((v) => v.embedded),
    ],
  );
}

/** The `embed` topic's receipt: these versions' passages have all their vectors (a newer version keeps its null). */
export async function markArtifactsEmbedded(
  ctx: AppContext,
  versions: { driveId: string; artId: string; versionNumber: number }[],
): Promise<void> {
  if (!versions.length) return;
  await ctx.pool.query(
    `update artifacts a set embedded_at = now()
       from unnest($1::text[], $2::text[], $3::int[]) as v(drive_id, art_id, version_number)
      where a.id = v.art_id and a.drive_id = v.drive_id and a.version_number = v.version_number`,
    [versions.map((v) => v.driveId), versions.map((v) => v.artId), versions.map((v) => v.versionNumber)],
  );
}
