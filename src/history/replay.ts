import { rows, type Db } from '../db/sql.js';

/**
 * The drive at a point of its feed, rebuilt by replaying its artifact and folder events in seq order (issue 38,
 * docs/decisions/runs.md). Every change is an event carrying the path (and version) it left, so the replay needs no
 * other table; the versions table then gives the bytes of each version.
 */

export interface ArtState {
  artId: string;
  path: string;
  live: boolean;
  version: number;
  /** Labels and metadata set by a metadata-only change after the version was written (else the version's). */
  meta: { labels: string[]; metadata: Record<string, unknown> } | null;
  /** Seq of the last change to this artifact. */
  seq: number;
}

export interface FolderState {
  fldId: string;
  path: string;
  live: boolean;
  seq: number;
}

export interface DriveState {
  seq: number;
  arts: Map<string, ArtState>;
  folders: Map<string, FolderState>;
}

/** What a replay reads of an event. */
export interface ReplayEvent {
  seq: string | number;
  art_id: string | null;
  fld_id: string | null;
  action: string;
  run_id: string | null;
  path: string | null;
  from_path: string | null;
  to_path: string | null;
  version: number | null;
  labels: string[] | null;
  meta: Record<string, unknown> | null;
}

export const REPLAY_COLUMNS = `e.seq, e.art_id, e.fld_id, e.action, e.run_id, e.metadata->>'path' as path,
  e.metadata->>'from' as from_path, e.metadata->>'to' as to_path, (e.metadata->>'version_number')::int as version,
  case when e.action = 'artifact.metadata_updated' then array(select jsonb_array_elements_text(e.metadata->'labels')) end as labels,
  case when e.action = 'artifact.metadata_updated' then e.metadata->'metadata' end as meta`;

export const emptyState = (): DriveState => ({ seq: 0, arts: new Map(), folders: new Map() });

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** Applies one event to the state (in seq order). */
export function apply(s: DriveState, e: ReplayEvent): void {
  const seq = Number(e.seq);
  s.seq = seq;
  if (e.art_id) return applyArtifact(s, e, seq);
  if (!e.fld_id) return;
  const f = s.folders.get(e.fld_id);
  switch (e.action) {
    case 'folder.created':
      s.folders.set(e.fld_id, { fldId: e.fld_id, path: e.path!, live: true, seq });
      return;
    case 'folder.moved':
      // The folder and its live subfolders move together (one event names only the top folder).
      for (const g of s.folders.values())
        if (g.live && under(g.path, e.from_path!)) g.path = e.to_path! + g.path.slice(e.from_path!.length);
      if (f) f.seq = seq;
      return;
    case 'folder.deleted':
      for (const g of s.folders.values()) if (g.live && under(g.path, e.path!)) g.live = false;
      if (f) f.seq = seq;
      return;
    case 'folder.purged':
      s.folders.delete(e.fld_id);
      return;
    default:
      if (f) f.seq = seq;
  }
}

function applyArtifact(s: DriveState, e: ReplayEvent, seq: number): void {
  const id = e.art_id!;
  const a = s.arts.get(id);
  switch (e.action) {
    case 'artifact.created':
    case 'artifact.copied':
      s.arts.set(id, { artId: id, path: e.path!, live: true, version: e.version ?? 1, meta: null, seq });
      return;
    case 'artifact.purged':
      s.arts.delete(id);
      return;
  }
  if (!a) return;
  a.seq = seq;
  switch (e.action) {
    case 'artifact.updated':
      a.version = e.version ?? a.version;
      a.meta = null;
      a.path = e.path ?? a.path;
      return;
    case 'artifact.renamed':
      a.path = e.to_path ?? e.path ?? a.path;
      return;
    case 'artifact.deleted':
      a.live = false;
      return;
    case 'artifact.restored':
      a.live = true;
      a.path = e.path ?? a.path;
      return;
    case 'artifact.metadata_updated':
      a.meta = { labels: e.labels ?? [], metadata: e.meta ?? {} };
  }
}

/** The drive's artifact and folder events with `after < seq <= upTo`, oldest first (at most `limit`). */
export async function replayEvents(
  db: Db,
  driveId: string,
  after: number,
  upTo: number,
  limit = 1_000_000_000,
): Promise<ReplayEvent[]> {
  return rows<ReplayEvent>(
    db,
    `select ${REPLAY_COLUMNS} from events e
      where e.drive_id = ? and e.seq > ?::int8 and e.seq <= ?::int8 and (e.art_id is not null or e.fld_id is not null)
      order by e.seq limit ?`,
    [driveId, String(after), String(upTo), limit],
  );
}
