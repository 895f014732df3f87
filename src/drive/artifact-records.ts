import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { one, type Db } from '../db/sql.js';

/** An artifact row as stored, and its ArtifactOut shape (spec 2.2, field names per SPEC over REFERENCE). */
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
}

export type Timestamp = string | Date;

/**
 * RFC 3339 in UTC, keeping PostgreSQL's microseconds (raw queries return timestamptz as text,
 * e.g. `2026-11-22 02:30:03.561892+00`), so a `before=` taken from a page bound is exact.
 */
export function iso(d: Timestamp | null): string | null {
  if (d === null || d === undefined) return null;
  if (d instanceof Date) return d.toISOString();
  const m = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(\.\d+)?([+-]\d\d(?::?\d\d)?|Z)$/.exec(d);
  if (!m) return new Date(d).toISOString();
  if (m[4] === '+00' || m[4] === 'Z' || m[4] === '+00:00' || m[4] === '+0000') return `${m[1]}T${m[2]}${m[3] ?? ''}Z`;
  return new Date(`${m[1]}T${m[2]}${m[3] ?? ''}${m[4].length === 3 ? `${m[4]}:00` : m[4]}`).toISOString();
}

/** The public rendered URL, viewer scheme `{web_url}/{drive_id}/{path}`; permalink `{web_url}/a/{art_id}`. */
export function artifactUrl(config: Config, driveId: string, path: string): string {
  return `${config.http.webUrl}/${driveId}/${path}`;
}

export function artifactPermalink(config: Config, artId: string): string {
  return `${config.http.webUrl}/a/${artId}`;
}

export function artifactOut(config: Config, r: ArtifactRow) {
  return {
    art_id: r.id,
    drive_id: r.drive_id,
    path: r.path,
    url: artifactUrl(config, r.drive_id, r.path),
    permalink: artifactPermalink(config, r.id),
    content_type: r.content_type,
    file_type: r.file_type,
    size_bytes: Number(r.size_bytes),
    hash: r.hash,
    version_number: r.version_number,
    labels: r.labels,
    metadata: r.metadata,
    // Spec 2.2: always an object; rows written before a source was given hold null.
    source: r.source ?? { refs: [] },
    visibility: r.visibility,
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
    deleted_at: iso(r.deleted_at),
    purge_at: iso(r.purge_at),
  };
}
export type ArtifactOut = ReturnType<typeof artifactOut>;

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
): Promise<ArtifactOut | null> {
  const db = ctx.orm.em.fork();
  const row = await one<ArtifactRow>(db, `select * from artifacts where id = ? and drive_id = ?${opts.includeTrashed ? '' : ' and deleted_at is null'}`, [artId, driveId]);
  return row ? artifactOut(ctx.config, row) : null;
}
