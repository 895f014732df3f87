import { AppError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { one, type Db } from '../db/sql.js';
import type { AppContext } from '../platform/context.js';
import { apply, emptyState, replayEvents, type ArtState, type DriveState, type ReplayEvent } from './replay.js';

/**
 * The drive's replayed state kept at some seqs (table `history_checkpoints`, issue 54), so `as_of`, revert and
 * rewind replay only the events since the nearest checkpoint at or before their point instead of the whole history.
 *
 * Written by the replays themselves: one that passes `every` events (or the state's own size, if larger) since the
 * checkpoint it started from keeps one. Tying the spacing to the state's size keeps the stored bytes within a constant
 * of the events' own, and a replay's cost within one checkpoint's load plus that many events. Events are never
 * rewritten (a purge is an event too), so a checkpoint never goes stale; they go with their drive.
 */

/** Events read per round trip: a long replay never holds the whole history in memory. */
const PAGE = 5000;

type ArtTuple = [string, string, 0 | 1, number, ArtState['meta'], number];
type FolderTuple = [string, string, 0 | 1, number];

/** Tuples rather than named fields: about a third of the bytes. */
function encodeState(s: DriveState): string {
  const arts: ArtTuple[] = [...s.arts.values()].map((a) => [a.artId, a.path, a.live ? 1 : 0, a.version, a.meta, a.seq]);
  const folders: FolderTuple[] = [...s.folders.values()].map((f) => [f.fldId, f.path, f.live ? 1 : 0, f.seq]);
  return JSON.stringify({ seq: s.seq, arts, folders });
}

function decodeState(text: string): DriveState {
  const raw = JSON.parse(text) as { seq: number; arts: ArtTuple[]; folders: FolderTuple[] };
  return {
    seq: raw.seq,
    arts: new Map(
      raw.arts.map(([artId, path, live, version, meta, seq]) => [
        artId,
        { artId, path, live: live === 1, version, meta, seq },
      ]),
    ),
    folders: new Map(raw.folders.map(([fldId, path, live, seq]) => [fldId, { fldId, path, live: live === 1, seq }])),
  };
}

/** Where a replay keeps its checkpoints: its own autocommitted statements (a preview's transaction is read-only). */
export interface CheckpointKeeper {
  /** A connection outside the replay's transaction. */
  db: Db;
  every: number;
  logger?: Logger;
}

export const keeperOf = (app: AppContext): CheckpointKeeper => ({
  db: app.orm.em.fork(),
  every: app.config.runs.checkpointEvery,
  logger: app.logger,
});

/** The drive right after its nearest checkpoint at or before `seq` (the empty drive at 0 when none). */
async function nearest(db: Db, driveId: string, seq: number): Promise<DriveState> {
  const cp = await one<{ state: string }>(
    db,
    'select state from history_checkpoints where drive_id = ? and seq <= ?::int8 order by seq desc limit 1',
    [driveId, String(seq)],
  );
  return cp ? decodeState(cp.state) : emptyState();
}

/**
 * Applies the drive's events after `s.seq` up to `upTo` to `s`, in pages; `each` sees every event before it is
 * applied (with the state as it was just before). Keeps checkpoints on the way when given a keeper.
 */
export async function replayInto(
  db: Db,
  driveId: string,
  s: DriveState,
  upTo: number,
  opts: { keep?: CheckpointKeeper; each?: (e: ReplayEvent, before: DriveState) => void } = {},
): Promise<void> {
  let kept = s.seq;
  for (;;) {
    const page = await replayEvents(db, driveId, s.seq, upTo, PAGE);
    for (const e of page) {
      opts.each?.(e, s);
      apply(s, e);
      if (opts.keep && s.seq - kept >= Math.max(opts.keep.every, s.arts.size + s.folders.size)) {
        kept = s.seq;
        await keepCheckpoint(opts.keep, driveId, s);
      }
    }
    if (page.length < PAGE) break;
  }
  s.seq = upTo;
}

async function keepCheckpoint(keep: CheckpointKeeper, driveId: string, s: DriveState): Promise<void> {
  try {
    await keep.db.execute(
      'insert into history_checkpoints (drive_id, seq, state) values (?, ?, ?) on conflict do nothing',
      [driveId, String(s.seq), encodeState(s)],
    );
  } catch (err) {
    // A checkpoint only saves later replays work: the answer never depends on it.
    keep.logger?.warn({ err, driveId, seq: s.seq }, 'history checkpoint not kept');
  }
}

/** A point past the drive's newest seq: one code wherever a seq is given (as_of, rewind to_seq). */
export const asOfOutOfRange = (seq: number, head: number, name = 'as_of') =>
  new AppError('AS_OF_OUT_OF_RANGE', `${name} ${seq} is after the drive's newest seq ${head}`, { newest_seq: head });

/** The drive right after event `seq`. 404 AS_OF_OUT_OF_RANGE past the drive's newest seq. */
export async function stateAt(
  db: Db,
  driveId: string,
  seq: number,
  head: number,
  keep?: CheckpointKeeper,
): Promise<DriveState> {
  if (seq > head) throw asOfOutOfRange(seq, head);
  const s = await nearest(db, driveId, seq);
  await replayInto(db, driveId, s, seq, { keep });
  return s;
}
