import { extractionOf } from '../search/extraction-lookup.js';
import type { RequestContext } from '../platform/request-context.js';
import { AppError } from '../lib/errors.js';
import { decodeCursor, encodeCursor } from '../lib/cursors.js';
import { artifactNotFound, type ArtifactRow } from '../records/artifact-records.js';
import { checkPath, fileTypeOf } from '../files/artifact-rules.js';
import { listArtifacts, type ListQuery } from '../files/artifact-listing.js';
import { getArtifact, getArtifactByPath } from '../files/artifacts.js';
import { listLiveOrTrash } from '../files/drive-trash.js';
import { readArtifactRange } from '../files/read-range.js';
import { blobName, openContent, readContent, type BlobRef } from '../files/content.js';
import { downloadName } from '../files/file-names.js';
import type { BlobRange } from '../storage/blob-store.js';
import { latestSeq } from '../files/events.js';
import { rows, type Db } from '../db/sql.js';
import type { ArtState, DriveState } from './replay.js';
import { keeperOf, stateAt } from './checkpoints.js';

/** Listing, records and reads of the drive as it was right after one event (`as_of=<seq>`). */

interface VersionState {
  art_id: string;
  version_number: number;
  size_bytes: string;
  hash: string;
  content_type: string;
  labels: string[] | null;
  metadata: Record<string, unknown> | null;
  filename: string | null;
  created_at: Date;
}

export const historyPurged = (paths: string[]) =>
  new AppError(
    'HISTORY_PURGED',
    `retention no longer keeps ${paths.length} artifact(s) this needs: ${paths.slice(0, 5).join(', ')}`,
    {
      purged: paths.slice(0, 100),
    },
  );

/**
 * The rows of the given artifacts as they were in `state`: each one's current row with the path, version, bytes,
 * labels and metadata it had then. 410 HISTORY_PURGED naming the paths whose artifact or version is gone.
 */
export async function rowsAsOf(db: Db, driveId: string, arts: ArtState[]): Promise<Map<string, ArtifactRow>> {
  const out = new Map<string, ArtifactRow>();
  if (!arts.length) return out;
  const found = await rows<ArtifactRow & { v: VersionState }>(
    db,
    `select a.*, to_jsonb(v) as v from unnest(array[?]::text[], array[?]::int[]) as t(art_id, version_number)
       join artifacts a on a.id = t.art_id and a.drive_id = ?
       join artifact_versions v on v.art_id = t.art_id and v.version_number = t.version_number`,
    [arts.map((a) => a.artId), arts.map((a) => a.version), driveId],
  );
  const byId = new Map(found.map((r) => [r.id, r]));
  const missing = arts.filter((a) => !byId.has(a.artId)).map((a) => a.path);
  if (missing.length) throw historyPurged(missing);
  for (const s of arts) {
    const { v, ...current } = byId.get(s.artId)!;
    out.set(s.artId, {
      ...current,
      path: s.path,
      version_number: s.version,
      size_bytes: v.size_bytes,
      hash: v.hash,
      content_type: v.content_type,
      file_type: fileTypeOf(s.path, v.content_type),
      labels: s.meta?.labels ?? v.labels ?? current.labels,
      metadata: s.meta?.metadata ?? v.metadata ?? current.metadata,
      filename: v.filename,
      updated_at: v.created_at,
      deleted_at: null,
      purge_at: null,
    });
  }
  return out;
}

async function driveAt(rc: RequestContext, seq: number): Promise<{ db: Db; state: DriveState }> {
  const db = rc.app.orm.em.fork();
  const state = await stateAt(db, rc.driveId, seq, await latestSeq(db, rc.driveId), keeperOf(rc.app));
  return { db, state };
}

const liveArts = (s: DriveState) => [...s.arts.values()].filter((a) => a.live);

export interface AsOfListQuery {
  asOf: number;
  prefix: string;
  labels: string[];
  fileType?: string;
  cursor?: string;
  limit: number;
}

/** GET /v0/artifacts?as_of=: the artifacts live right after event `as_of`, by path, paged like the live listing. */
export async function listArtifactsAsOf(rc: RequestContext, q: AsOfListQuery) {
  const { db, state } = await driveAt(rc, q.asOf);
  const after = q.cursor
    ? decodeCursor(q.cursor, (v): v is { p: string } => typeof (v as { p?: unknown }).p === 'string').p
    : undefined;
  const chosen = liveArts(state)
    .filter((a) => a.path.startsWith(q.prefix) && (after === undefined || a.path > after))
    .sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  // Labels and file type are known only with the version: resolve in slices until the page is full.
  const items: ArtifactRow[] = [];
  let more = false;
  for (let i = 0; i < chosen.length && !more; i += q.limit + 1) {
    const slice = chosen.slice(i, i + q.limit + 1);
    const resolved = await rowsAsOf(db, rc.driveId, slice);
    for (const s of slice) {
      const r = resolved.get(s.artId)!;
      if (q.labels.length && !q.labels.every((l) => r.labels.includes(l))) continue;
      if (q.fileType && r.file_type !== q.fileType) continue;
      if (items.length === q.limit) {
        more = true;
        break;
      }
      items.push(r);
    }
  }
  return { items, next_cursor: more ? encodeCursor({ p: items[items.length - 1].path }) : null };
}

/** One artifact (by id or by path) as it was right after event `as_of`; 404 when it was not live then. */
export async function artifactAsOf(
  rc: RequestContext,
  ref: { artId: string } | { path: string },
  asOf: number,
): Promise<ArtifactRow> {
  const { db, state } = await driveAt(rc, asOf);
  const s = liveArts(state).find((a) => ('artId' in ref ? a.artId === ref.artId : a.path === ref.path));
  if (!s) throw artifactNotFound(`no live artifact there as of seq ${asOf}`);
  return (await rowsAsOf(db, rc.driveId, [s])).get(s.artId)!;
}

/** MCP `list`: the live listing or the trash, or the drive as of a seq. */
export async function listAt(rc: RequestContext, q: ListQuery & { trash: boolean; asOf?: number }) {
  if (q.asOf === undefined) return listLiveOrTrash(rc, q);
  if (q.trash) throw new AppError('INVALID_ARGUMENT', 'as_of lists live artifacts as they were; drop trash');
  return listArtifactsAsOf(rc, { ...q, asOf: q.asOf });
}

/** The bytes of the version an artifact had as of a seq (its row may be in the trash now). */
const blobOf = (then: ArtifactRow): BlobRef => ({
  artId: then.id,
  hash: then.hash,
  size: Number(then.size_bytes),
  contentType: then.content_type,
  path: then.path,
  filename: downloadName(then.path, then.filename),
  versionNumber: then.version_number,
});

/** MCP `read`: a range of the artifact, or of the version it had as of a seq (trashed since or not, as REST). */
export async function readAt(rc: RequestContext, input: Parameters<typeof readArtifactRange>[1] & { asOf?: number }) {
  if (input.asOf === undefined) return readArtifactRange(rc, input);
  const ref = input.ref.startsWith('art_') ? { artId: input.ref } : { path: input.ref.replace(/^\/+/, '') };
  const then = await artifactAsOf(rc, ref, input.asOf);
  return readArtifactRange(rc, { ...input, ref: then.id, version: then.version_number, blob: blobOf(then) });
}

/** The live answer, or the answer as of a seq: one operation per door call either way. */
export async function listArtifactsAt(rc: RequestContext, q: ListQuery & { asOf?: number }) {
  if (q.asOf === undefined) return listArtifacts(rc, q);
  if (q.folderId) throw new AppError('INVALID_ARGUMENT', 'as_of lists your own drive: use prefix instead of folder');
  return listArtifactsAsOf(rc, { ...q, asOf: q.asOf });
}

/** One artifact record: as it is now with its extraction state, or as of a seq (its state then is not kept). */
export async function artifactAt(rc: RequestContext, ref: { artId: string } | { path: string }, asOf?: number) {
  if (asOf !== undefined) return artifactAsOf(rc, 'path' in ref ? { path: checkPath(ref.path) } : ref, asOf);
  const row = 'artId' in ref ? await getArtifact(rc, ref.artId) : await getArtifactByPath(rc, ref.path);
  return { ...row, extraction: await extractionOf(rc, row) };
}

/** GET …/download?as_of=: the bytes of the version the artifact had then. */
export async function openContentAt(rc: RequestContext, artId: string, asOf?: number) {
  if (asOf === undefined) return openContent(rc, { artId });
  // Its row may be in the trash now: the bytes come from the version it had then, not from a live artifact.
  const blob = blobOf(await artifactAsOf(rc, { artId }, asOf));
  return { blob, filename: blobName(blob), read: (range?: BlobRange) => readContent(rc.app, blob, range) };
}
