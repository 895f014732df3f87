import type { RequestContext } from '../platform/request-context.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { one, rows, transaction, type Db } from '../db/sql.js';
import { latestSeq } from '../files/events.js';
import { replayEvents } from './replay.js';
import { asOfOutOfRange, keeperOf, stateAt, type CheckpointKeeper } from './checkpoints.js';
import { applyUndo, type UndoResult, type UndoTarget } from './undo.js';

/**
 * Snapshots: a named seq of the drive (O(1) to make). While one lives, the trash purge keeps every artifact that
 * existed at or before its seq (src/files/purge.ts), so the drive as of that seq stays readable and rewindable.
 */

/** Live snapshots per drive (docs/decisions/runs.md). */
export const SNAPSHOT_MAX = 50;

export interface SnapshotRow {
  id: string;
  drive_id: string;
  seq: string;
  label: string;
  created_at: Date;
}

export async function createSnapshot(rc: RequestContext, label: string): Promise<SnapshotRow> {
  return transaction(rc.app, async (tx) => {
    // The drive row lock serialises snapshot makers of one drive, so the count bound holds.
    const drive = (await one<{ event_seq: string }>(tx, 'select event_seq from drives where id = ? for update', [
      rc.driveId,
    ]))!;
    const n = (await one<{ n: string }>(tx, 'select count(*) as n from snapshots where drive_id = ?', [rc.driveId]))!;
    if (Number(n.n) >= SNAPSHOT_MAX)
      throw new AppError('SNAPSHOT_LIMIT_REACHED', `a drive keeps at most ${SNAPSHOT_MAX} snapshots; delete one first`);
    return (await one<SnapshotRow>(
      tx,
      'insert into snapshots (id, drive_id, seq, label) values (?, ?, ?, ?) returning *',
      [newId('snp'), rc.driveId, drive.event_seq, label],
    ))!;
  });
}

export const listSnapshots = (rc: RequestContext) =>
  rows<SnapshotRow>(
    rc.app.orm.em.fork(),
    'select * from snapshots where drive_id = ? order by seq desc, created_at desc',
    [rc.driveId],
  );

const snapshotNotFound = () => new AppError('SNAPSHOT_NOT_FOUND', 'no such snapshot for this drive');

export async function deleteSnapshot(rc: RequestContext, id: string): Promise<SnapshotRow> {
  const gone = await one<SnapshotRow>(
    rc.app.orm.em.fork(),
    'delete from snapshots where id = ? and drive_id = ? returning *',
    [id, rc.driveId],
  );
  if (!gone) throw snapshotNotFound();
  return gone;
}

export interface RewindInput {
  toSeq?: number;
  toSnapshot?: string;
  prefix?: string;
  dryRun: boolean;
  force: boolean;
}

const under = (path: string, prefix: string) => path.startsWith(prefix);

/**
 * What rewinding means: everything (under `prefix`) changed after `seq` goes back to its state then. The state at
 * `seq` comes from the nearest checkpoint (issue 54).
 */
async function rewindTarget(
  db: Db,
  driveId: string,
  seq: number,
  prefix: string,
  keep: CheckpointKeeper,
): Promise<UndoTarget> {
  const head = await latestSeq(db, driveId);
  if (seq > head) throw asOfOutOfRange(seq, head, 'to_seq');
  const then = await stateAt(db, driveId, seq, head, keep);
  const target: UndoTarget = { arts: new Map(), folders: new Map(), conflicted: new Set() };
  const folderPrefix = prefix.replace(/\/$/, '');
  for (const e of await replayEvents(db, driveId, seq, head)) {
    const before = e.art_id ? then.arts.get(e.art_id) : then.folders.get(e.fld_id!);
    const paths = [before?.path, e.path, e.from_path, e.to_path].filter((p): p is string => Boolean(p));
    if (!paths.some((p) => under(p, prefix) || (e.fld_id && folderPrefix && under(p, folderPrefix)))) continue;
    if (e.art_id) target.arts.set(e.art_id, then.arts.get(e.art_id) ?? null);
    else target.folders.set(e.fld_id!, then.folders.get(e.fld_id!) ?? null);
  }
  // A folder moved or deleted after the point carries its subfolders: they go back too.
  for (const [id, f] of then.folders) {
    if (target.folders.has(id) || !under(f.path, folderPrefix)) continue;
    if ([...target.folders.values()].some((t) => t && f.path.startsWith(`${t.path}/`))) target.folders.set(id, f);
  }
  return target;
}

/**
 * POST /v0/drives/me/rewind: everything (under `prefix`) changed after the point goes back to its state then, by new
 * versions, deletes and restores, as one run.
 */
export async function rewindDrive(rc: RequestContext, input: RewindInput): Promise<UndoResult & { to_seq: number }> {
  if ((input.toSeq === undefined) === (input.toSnapshot === undefined))
    throw new AppError('INVALID_ARGUMENT', 'give exactly one of to_seq, to_snapshot');
  let seq = input.toSeq;
  if (input.toSnapshot !== undefined) {
    const s = await one<SnapshotRow>(rc.app.orm.em.fork(), 'select * from snapshots where id = ? and drive_id = ?', [
      input.toSnapshot,
      rc.driveId,
    ]);
    if (!s) throw snapshotNotFound();
    seq = Number(s.seq);
  }
  if (seq === undefined) throw new AppError('INVALID_ARGUMENT', 'give to_seq or to_snapshot');
  const to = seq;
  const keep = keeperOf(rc.app);
  const r = await applyUndo(rc, (db) => rewindTarget(db, rc.driveId, to, input.prefix ?? '', keep), {
    dryRun: input.dryRun,
    force: input.force,
    cause: 'rewind',
  });
  return { to_seq: to, ...r };
}
