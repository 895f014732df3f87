import type { RequestContext } from '../platform/request-context.js';
import { AppError } from '../lib/errors.js';
import { decodeCursor, encodeCursor } from '../lib/cursors.js';
import { one, rows, type Db } from '../db/sql.js';
import { latestSeq } from '../files/events.js';
import { REPLAY_COLUMNS, type DriveState, type FolderState, type ReplayEvent } from './replay.js';
import { keeperOf, replayInto, stateAt, type CheckpointKeeper } from './checkpoints.js';
import { applyUndo, type UndoResult, type UndoTarget } from './undo.js';

/** Runs (issue 38): the drive's changes grouped by the run that made them, and undoing one run. */

export interface RunRow {
  run_id: string;
  actor_name: string | null;
  credential_kind: string | null;
  credential_name: string | null;
  first_seq: string;
  last_seq: string;
  started_at: Date;
  ended_at: Date;
  created: string;
  updated: string;
  deleted: string;
  moved: string;
  restored: string;
  other: string;
}

const RUN_SUMMARY = `select run_id,
    (array_agg(actor_name order by seq) filter (where actor_name is not null))[1] as actor_name,
    (array_agg(credential_kind order by seq))[1] as credential_kind,
    (array_agg(credential_name order by seq) filter (where credential_name is not null))[1] as credential_name,
    min(seq) as first_seq, max(seq) as last_seq, min(created_at) as started_at, max(created_at) as ended_at,
    count(*) filter (where action in ('artifact.created', 'artifact.copied', 'folder.created')) as created,
    count(*) filter (where action in ('artifact.updated', 'artifact.metadata_updated', 'folder.updated')) as updated,
    count(*) filter (where action in ('artifact.deleted', 'folder.deleted')) as deleted,
    count(*) filter (where action in ('artifact.renamed', 'folder.moved')) as moved,
    count(*) filter (where action = 'artifact.restored') as restored,
    count(*) filter (where action not in ('artifact.created', 'artifact.copied', 'folder.created', 'artifact.updated',
      'artifact.metadata_updated', 'folder.updated', 'artifact.deleted', 'folder.deleted', 'artifact.renamed',
      'folder.moved', 'artifact.restored')) as other
  from events`;

/** GET /v0/runs: newest run first (by its last change), keyset on that seq. */
export async function listRuns(rc: RequestContext, q: { cursor?: string; limit: number }) {
  const before = q.cursor
    ? decodeCursor(q.cursor, (v): v is { s: string } => typeof (v as { s?: unknown }).s === 'string').s
    : null;
  const found = await rows<RunRow>(
    rc.app.orm.em.fork(),
    `${RUN_SUMMARY} where drive_id = ? and run_id is not null group by run_id
      having (?::int8 is null or max(seq) < ?::int8) order by max(seq) desc limit ?`,
    [rc.driveId, before, before, q.limit + 1],
  );
  const items = found.slice(0, q.limit);
  return { items, next_cursor: found.length > q.limit ? encodeCursor({ s: items[items.length - 1].last_seq }) : null };
}

const runNotFound = (runId: string) => new AppError('RUN_NOT_FOUND', `no change of this drive belongs to run ${runId}`);

async function runSummary(db: Db, driveId: string, runId: string): Promise<RunRow> {
  const r = await one<RunRow>(db, `${RUN_SUMMARY} where drive_id = ? and run_id = ? group by run_id`, [driveId, runId]);
  if (!r) throw runNotFound(runId);
  return r;
}

/** GET /v0/runs/{run_id}: the run and its changes (oldest first, keyset on seq). */
export async function getRun(rc: RequestContext, runId: string, q: { cursor?: string; limit: number }) {
  const db = rc.app.orm.em.fork();
  const run = await runSummary(db, rc.driveId, runId);
  const after = q.cursor
    ? decodeCursor(q.cursor, (v): v is { s: string } => typeof (v as { s?: unknown }).s === 'string').s
    : '0';
  const found = await rows<ReplayEvent & { created_at: Date }>(
    db,
    `select ${REPLAY_COLUMNS}, e.created_at from events e where e.drive_id = ? and e.run_id = ? and e.seq > ?::int8 order by e.seq limit ?`,
    [rc.driveId, runId, after, q.limit + 1],
  );
  const changes = found.slice(0, q.limit);
  return {
    run,
    changes,
    next_cursor: found.length > q.limit ? encodeCursor({ s: String(changes[changes.length - 1].seq) }) : null,
  };
}

const copyState = (s: DriveState): DriveState => ({
  seq: s.seq,
  arts: new Map([...s.arts].map(([k, v]) => [k, { ...v }])),
  folders: new Map([...s.folders].map(([k, v]) => [k, { ...v }])),
});

const copyOf = <T extends object>(x: T | undefined): T | null => (x ? { ...x } : null);

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/**
 * What undoing one run means: every artifact and folder it changed goes back to its state right before the run's
 * first change. Folders moved or deleted with a folder the run changed count too. Something another run changed
 * after the run began is a conflict. The state before the run comes from the nearest checkpoint (issue 54).
 */
export async function revertTarget(
  db: Db,
  driveId: string,
  runId: string,
  keep?: CheckpointKeeper,
): Promise<UndoTarget> {
  const head = await latestSeq(db, driveId);
  const first = await one<{ seq: string }>(db, `select min(seq) as seq from events where drive_id = ? and run_id = ?`, [
    driveId,
    runId,
  ]);
  if (!first?.seq) throw runNotFound(runId);
  const before = await stateAt(db, driveId, Number(first.seq) - 1, head, keep);
  const now = copyState(before);
  const target: UndoTarget = { arts: new Map(), folders: new Map(), conflicted: new Set() };
  // Each thing goes back to its state right before the run first changed it (another run may have changed it
  // between the run's first change and that one).
  const folderThen = new Map<string, FolderState | null>();
  await replayInto(db, driveId, now, head, {
    keep,
    each: (e) => {
      const id = e.art_id ?? e.fld_id!;
      if (e.run_id === runId) {
        if (e.art_id && !target.arts.has(id)) target.arts.set(id, copyOf(now.arts.get(id)));
        if (!e.art_id && !folderThen.has(id)) folderThen.set(id, copyOf(now.folders.get(id)));
      } else if (target.arts.has(id) || folderThen.has(id)) {
        target.conflicted.add(id);
      }
    },
  });
  for (const [id, then] of folderThen) {
    target.folders.set(id, then);
    const n = now.folders.get(id);
    // Subfolders carried along by a move or delete of this folder.
    for (const [gid, g] of before.folders) {
      const gn = now.folders.get(gid);
      const moved = !gn || gn.live !== g.live || gn.path !== g.path;
      if (moved && ((then && under(g.path, then.path)) || (n && gn && under(gn.path, n.path))))
        target.folders.set(gid, g);
    }
  }
  return target;
}

/** POST /v0/runs/{run_id}/revert (and its preview, `dryRun`). */
export async function revertRun(
  rc: RequestContext,
  runId: string,
  opts: { dryRun: boolean; force: boolean },
): Promise<UndoResult & { run_id: string }> {
  const keep = keeperOf(rc.app);
  const r = await applyUndo(rc, (db) => revertTarget(db, rc.driveId, runId, keep), { ...opts, cause: 'revert' });
  return { run_id: runId, ...r };
}

/** MCP `runs`: the recent runs, or one run with its changes. */
export async function runsOrRun(rc: RequestContext, q: { runId?: string; cursor?: string; limit: number }) {
  if (q.runId === undefined) return { kind: 'list' as const, ...(await listRuns(rc, q)) };
  return { kind: 'run' as const, ...(await getRun(rc, q.runId, q)) };
}
