import type { ArtifactRow } from '../records/artifact-records.js';
import type { FolderRow } from '../files/folders.js';
import { likePrefix, one, rows, type Db } from '../db/sql.js';
import type { ArtState, FolderState } from './replay.js';
import { historyPurged, rowsAsOf } from './as-of.js';
import type { Placement } from './undo-ops.js';

/**
 * What an undo will do, computed from reads alone (issue 54): the preview is this plan, and the undo itself is this
 * plan computed again over the rows its transaction locked, then run step by step. Moves are ordered by what they
 * wait for (the artifact now at their target path moving away first), so the plan is linear in the changes: each
 * target path has one live occupant, so each move waits for at most one other, and the waits form chains (ordered)
 * or cycles (a swap: reported `path_occupied`, as before).
 */

export interface UndoTarget {
  /** Per artifact id: its state at the point (null: it did not exist then). */
  arts: Map<string, ArtState | null>;
  folders: Map<string, FolderState | null>;
  /** Ids changed after the point by something the undo must not overwrite (another run). */
  conflicted: Set<string>;
}

export type Outcome = 'reverted' | 'conflict' | 'unchanged';

export interface UndoChange {
  kind: 'artifact' | 'folder';
  id: string;
  /** Where it is now (before the undo). */
  path: string | null;
  /** Where the undo puts it (null: to the trash). */
  target_path: string | null;
  /** What the undo does: trash, restore, move, version (new version with the old bytes), delete, undelete. */
  steps: string[];
  outcome: Outcome;
  reason?: 'changed_by_another_run' | 'path_occupied' | 'folder_not_empty';
}

/** One write of the undo, in the order they run. */
export type UndoStep =
  | { kind: 'undelete_folder' | 'move_folder'; folder: FolderRow; path: string }
  | { kind: 'delete_folder'; folder: FolderRow }
  | { kind: 'trash'; row: ArtifactRow }
  | { kind: 'place'; places: Placement[] }
  | { kind: 'version'; row: ArtifactRow; goal: ArtifactRow };

export interface UndoPlan {
  changes: UndoChange[];
  steps: UndoStep[];
}

const depth = (p: string) => p.split('/').length;
const under = (path: string, folder: string) => path.startsWith(`${folder}/`);
const skip = (c: UndoChange, reason: UndoChange['reason']) =>
  Object.assign(c, { steps: [], outcome: 'conflict', reason });

/** A folder as the plan sees it while it runs the folder steps in its head. */
interface FolderModel {
  row: FolderRow;
  path: string;
  live: boolean;
}

/** An artifact step list in the making. */
interface Pending {
  c: UndoChange;
  row: ArtifactRow;
  goal: ArtifactRow;
}

/**
 * The plan of putting `t` back, over the drive as `db` sees it. `lock`: inside the undo's write transaction, the rows
 * it changes are locked first (artifacts, then folders, as before), so the plan it runs is the one it computed.
 */
export async function planUndo(db: Db, driveId: string, t: UndoTarget, lock: boolean): Promise<UndoPlan> {
  const artIds = [...t.arts.keys()];
  const fldIds = [...t.folders.keys()];
  const byId = async <R extends { id: string }>(table: string, ids: string[]) =>
    new Map(
      (ids.length
        ? await rows<R>(
            db,
            `select * from ${table} where drive_id = ? and id = any(array[?]::text[])${lock ? ' for update' : ''}`,
            [driveId, ids],
          )
        : []
      ).map((r) => [r.id, r]),
    );
  const arts = await byId<ArtifactRow>('artifacts', artIds);
  const folders = await byId<FolderRow>('folders', fldIds);
  // What each artifact must become: its row as of the point (bytes, labels, metadata, path).
  const wanted = [...t.arts.values()].filter((s): s is ArtState => s !== null && s.live);
  const purged = wanted.filter((s) => !arts.has(s.artId)).map((s) => s.path);
  if (purged.length) throw historyPurged(purged);
  const then = await rowsAsOf(db, driveId, wanted);
  const plan: UndoPlan = { changes: [], steps: [] };
  const model = await folderModel(db, driveId, t, folders);
  const folderChanges = planFolderReturns(plan, t, folders, model);
  const moved = await planArtifacts(db, driveId, plan, t, arts, then);
  await planFolderDeletes(db, driveId, plan, t, folders, model, folderChanges, moved);
  return plan;
}

/** The target folders, the live folders at their goal paths and under their paths now: all a folder step can meet. */
async function folderModel(db: Db, driveId: string, t: UndoTarget, folders: Map<string, FolderRow>) {
  const goals = [...t.folders.values()].filter((g): g is FolderState => Boolean(g?.live)).map((g) => g.path);
  const subtrees = [...folders.values()].filter((f) => !f.deleted_at).map((f) => likePrefix(`${f.path}/`));
  const model = new Map<string, FolderModel>();
  for (const row of folders.values()) model.set(row.id, { row, path: row.path, live: !row.deleted_at });
  if (!goals.length && !subtrees.length) return model;
  const near = await rows<FolderRow>(
    db,
    `select * from folders where drive_id = ? and deleted_at is null
       and (path = any(array[?]::text[]) or path like any(array[?]::text[]))`,
    [driveId, goals.length ? goals : [''], subtrees.length ? subtrees : ['']],
  );
  for (const row of near) if (!model.has(row.id)) model.set(row.id, { row, path: row.path, live: true });
  return model;
}

/** Folders first, shallowest first: undeletes and moves back, so artifacts land inside live folders. */
function planFolderReturns(
  plan: UndoPlan,
  t: UndoTarget,
  folders: Map<string, FolderRow>,
  model: Map<string, FolderModel>,
) {
  const folderChanges = new Map<string, UndoChange>();
  const order = [...t.folders.keys()].sort(
    (a, b) => depth(t.folders.get(a)?.path ?? '') - depth(t.folders.get(b)?.path ?? ''),
  );
  for (const id of order) {
    const goal = t.folders.get(id) ?? null;
    const now = folders.get(id);
    const c: UndoChange = {
      kind: 'folder',
      id,
      path: now && !now.deleted_at ? now.path : null,
      target_path: goal?.live ? goal.path : null,
      steps: [],
      outcome: 'unchanged',
    };
    folderChanges.set(id, c);
    plan.changes.push(c);
    if (!now || !goal?.live) continue; // deletions come last
    if (t.conflicted.has(id)) {
      if (now.deleted_at || now.path !== goal.path) skip(c, 'changed_by_another_run');
      continue;
    }
    if (now.deleted_at) c.steps.push('undelete');
    else if (now.path !== goal.path) c.steps.push('move');
    if (!c.steps.length) continue;
    if ([...model.values()].some((m) => m.live && m.path === goal.path && m.row.id !== id)) {
      skip(c, 'path_occupied');
      continue;
    }
    const m = model.get(id)!;
    if (now.deleted_at) {
      plan.steps.push({ kind: 'undelete_folder', folder: { ...now, path: m.path }, path: goal.path });
      Object.assign(m, { path: goal.path, live: true });
    } else if (m.path !== goal.path) {
      // The folder's live subfolders move with it (one statement), as they will in the transaction.
      plan.steps.push({ kind: 'move_folder', folder: { ...now, path: m.path }, path: goal.path });
      const from = m.path;
      for (const g of model.values())
        if (g.live && (g.path === from || under(g.path, from))) g.path = goal.path + g.path.slice(from.length);
    }
    c.outcome = 'reverted';
  }
  return folderChanges;
}

/** Where each artifact the plan changes is live after it (absent: not live). */
type Placed = Map<string, string>;

/** Artifacts: to the trash first (frees paths), then restores and moves in dependency order, then versions. */
async function planArtifacts(
  db: Db,
  driveId: string,
  plan: UndoPlan,
  t: UndoTarget,
  arts: Map<string, ArtifactRow>,
  then: Map<string, ArtifactRow>,
): Promise<{ before: Map<string, ArtifactRow>; after: Placed }> {
  const pending: Pending[] = [];
  const trashed = new Set<string>();
  const after: Placed = new Map();
  for (const [id, goal] of t.arts) {
    const row = arts.get(id);
    const c: UndoChange = {
      kind: 'artifact',
      id,
      path: row && !row.deleted_at ? row.path : null,
      target_path: goal?.live ? goal.path : null,
      steps: [],
      outcome: 'unchanged',
    };
    plan.changes.push(c);
    if (!row) continue; // purged and not wanted: nothing to do
    const live = !row.deleted_at;
    if (live) after.set(id, row.path);
    if (!goal?.live) {
      if (!live) continue;
      if (t.conflicted.has(id)) {
        skip(c, 'changed_by_another_run');
        continue;
      }
      c.steps.push('trash');
      plan.steps.push({ kind: 'trash', row });
      trashed.add(id);
      after.delete(id);
      c.outcome = 'reverted';
      continue;
    }
    const was = then.get(id)!;
    if (!live) c.steps.push('restore');
    else if (row.path !== was.path) c.steps.push('move');
    const sameContent =
      row.hash === was.hash &&
      row.content_type === was.content_type &&
      JSON.stringify(row.labels) === JSON.stringify(was.labels) &&
      JSON.stringify(row.metadata) === JSON.stringify(was.metadata);
    if (!sameContent) c.steps.push('version');
    if (!c.steps.length) continue;
    if (t.conflicted.has(id)) {
      skip(c, 'changed_by_another_run');
      continue;
    }
    pending.push({ c, row, goal: was });
  }
  const movers = pending.filter((p) => p.c.steps[0] === 'restore' || p.c.steps[0] === 'move');
  const places: Placement[] = [];
  for (const p of await orderMoves(db, driveId, movers, trashed)) {
    places.push({ row: p.row, path: p.goal.path, how: p.c.steps[0] as 'restore' | 'move' });
    after.set(p.row.id, p.goal.path);
    p.c.outcome = 'reverted';
  }
  // One step for them all, in dependency order (src/history/undo-ops.ts writes them in three statements).
  if (places.length) plan.steps.push({ kind: 'place', places });
  for (const p of pending) {
    if (p.c.outcome === 'conflict' || !p.c.steps.includes('version')) continue;
    plan.steps.push({ kind: 'version', row: { ...p.row, path: after.get(p.row.id)! }, goal: p.goal });
    p.c.outcome = 'reverted';
  }
  return { before: arts, after };
}

/**
 * The moves that can run, each after the one whose target path it frees; the others `path_occupied` (their target
 * is held by something that stays, or they wait on each other in a cycle). One query for the occupants, then linear.
 */
async function orderMoves(db: Db, driveId: string, movers: Pending[], trashed: Set<string>): Promise<Pending[]> {
  if (!movers.length) return [];
  const occupants = new Map(
    (
      await rows<{ id: string; path: string }>(
        db,
        `select id, path from artifacts where drive_id = ? and deleted_at is null and path = any(array[?]::text[])`,
        [driveId, movers.map((p) => p.goal.path)],
      )
    ).map((r) => [r.path, r.id]),
  );
  const moverOf = new Map(movers.map((p) => [p.row.id, p]));
  const claimed = new Set<string>();
  /** What each mover waits for: null (free), another mover, or 'blocked'. */
  const waits = new Map<Pending, Pending | null | 'blocked'>();
  for (const p of movers) {
    const occ = occupants.get(p.goal.path);
    // Two movers after one path: the first takes it, the second finds it occupied.
    if (claimed.has(p.goal.path)) waits.set(p, 'blocked');
    else if (!occ || occ === p.row.id || trashed.has(occ)) waits.set(p, null);
    else waits.set(p, moverOf.get(occ) ?? 'blocked');
    claimed.add(p.goal.path);
  }
  // Resolve each chain once: a mover runs iff what it waits for runs; a cycle never does.
  const runs = new Map<Pending, boolean>();
  for (const start of movers) {
    const chain: Pending[] = [];
    const onChain = new Set<Pending>();
    let p: Pending | null | 'blocked' = start;
    let verdict: boolean;
    for (;;) {
      if (p === null) {
        verdict = true;
        break;
      }
      if (p === 'blocked' || onChain.has(p)) {
        verdict = false;
        break;
      }
      const known = runs.get(p);
      if (known !== undefined) {
        verdict = known;
        break;
      }
      chain.push(p);
      onChain.add(p);
      p = waits.get(p)!;
    }
    for (const q of chain) runs.set(q, verdict);
  }
  // Emit each runnable mover after the one it waits for (chains, walked from their free end).
  const order: Pending[] = [];
  const emitted = new Set<Pending>();
  for (const start of movers) {
    if (!runs.get(start)) continue;
    const chain: Pending[] = [];
    for (let p: Pending | null | 'blocked' = start; p && p !== 'blocked' && !emitted.has(p); p = waits.get(p)!)
      chain.push(p);
    for (const q of chain.reverse()) (emitted.add(q), order.push(q));
  }
  for (const p of movers) if (!runs.get(p)) skip(p.c, 'path_occupied');
  return order;
}

/** Folders that did not exist (or were deleted) at the point: deepest first, only once empty after the plan. */
async function planFolderDeletes(
  db: Db,
  driveId: string,
  plan: UndoPlan,
  t: UndoTarget,
  folders: Map<string, FolderRow>,
  model: Map<string, FolderModel>,
  folderChanges: Map<string, UndoChange>,
  moved: { before: Map<string, ArtifactRow>; after: Placed },
) {
  const order = [...t.folders.keys()].sort(
    (a, b) => depth(folders.get(b)?.path ?? '') - depth(folders.get(a)?.path ?? ''),
  );
  for (const id of order) {
    const goal = t.folders.get(id) ?? null;
    const now = folders.get(id);
    const c = folderChanges.get(id)!;
    if (!now || now.deleted_at || goal?.live) continue;
    if (t.conflicted.has(id)) {
      skip(c, 'changed_by_another_run');
      continue;
    }
    const m = model.get(id)!;
    if (await holdsContent(db, driveId, m, model, moved)) {
      skip(c, 'folder_not_empty');
      continue;
    }
    c.steps.push('delete');
    plan.steps.push({ kind: 'delete_folder', folder: { ...now, path: m.path } });
    m.live = false;
    c.outcome = 'reverted';
  }
}

/**
 * Whether the folder holds anything live once the plan's earlier steps ran: its live subfolders (all in the model),
 * and its live artifacts now, less those the plan takes out of it, plus those it brings in.
 */
async function holdsContent(
  db: Db,
  driveId: string,
  m: FolderModel,
  model: Map<string, FolderModel>,
  moved: { before: Map<string, ArtifactRow>; after: Placed },
): Promise<boolean> {
  if ([...model.values()].some((g) => g.live && under(g.path, m.path))) return true;
  const n = Number(
    (await one<{ n: string }>(
      db,
      `select count(*) as n from artifacts where drive_id = ? and deleted_at is null and path like ?`,
      [driveId, likePrefix(`${m.path}/`)],
    ))!.n,
  );
  let left = n;
  for (const [id, row] of moved.before) {
    const was = !row.deleted_at && under(row.path, m.path);
    const placed = moved.after.get(id);
    const is = placed !== undefined && under(placed, m.path);
    left += Number(is) - Number(was);
  }
  return left > 0;
}
