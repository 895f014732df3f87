import type { AppContext } from '../context.js';
import { EventAction } from '../drive/events.js';
import { rows } from '../db/sql.js';
import { applyHookCall } from './artifact-hook-binding.js';
import type { SearchIndexHooks } from './hooks.js';

/**
 * The repair half of "never commit, then hope" (DESIGN.md): the hooks run after commit, so a crash
 * (or Temporal being down) between the commit and the hook would leave the index stale. Each
 * cleanup run compares the artifacts with the PostgreSQL engine's documents and re-sends the hook
 * calls, a bounded batch at a time:
 * - a live artifact of a live drive with no document, an older version_number or another
 *   file_type → contentChanged; the same version at another path → recordChanged;
 * - a document whose artifact is in the trash, or was purged (an `artifact.purged` event exists) → removed.
 * Only rows unchanged for `graceS` count, so changes whose hooks are still in flight are left alone.
 * Documents of a soft-deleted drive are left as they are (its credentials are refused; a restore
 * brings them back as they were).
 */
export interface SweepOptions {
  /** Seconds an artifact must have been unchanged before the sweeper repairs it. */
  graceS?: number;
  /** At most this many artifacts per kind of repair per run. */
  batch?: number;
  /** Only this drive (tests; the schedule sweeps every drive). */
  driveId?: string;
}

export type SweepResult = {
  reindexed: number;
  refreshed: number;
  removed: number;
};

export const SWEEP_GRACE_S = 60;
export const SWEEP_BATCH = 100;

interface StaleRow {
  drive_id: string;
  art_id: string;
  version_number: number;
  path: string;
  content_stale: boolean;
}

export async function sweepSearchIndex(ctx: AppContext, hooks: SearchIndexHooks, opts: SweepOptions = {}): Promise<SweepResult | null> {
  // The comparison is a join against the PostgreSQL engine's table; Typesense keeps its documents elsewhere.
  if (ctx.config.typesense) return null;
  const grace = opts.graceS ?? SWEEP_GRACE_S;
  const batch = opts.batch ?? SWEEP_BATCH;
  const db = ctx.orm.em.fork();
  const drive = (alias: string) => (opts.driveId ? `and ${alias}.drive_id = ?` : '');
  const driveParam = opts.driveId ? [opts.driveId] : [];

  const stale = await rows<StaleRow>(
    db,
    `select a.drive_id, a.id as art_id, a.version_number, a.path,
            (d.art_id is null or d.version_number < a.version_number or d.file_type <> a.file_type) as content_stale
       from artifacts a
       join drives dr on dr.id = a.drive_id and dr.deleted_at is null
       left join search_documents d on d.drive_id = a.drive_id and d.art_id = a.id
      where a.deleted_at is null and a.updated_at < clock_timestamp() - make_interval(secs => ?) ${drive('a')}
        and (d.art_id is null or d.version_number < a.version_number or d.file_type <> a.file_type or d.path <> a.path)
      order by a.updated_at
      limit ?`,
    [grace, ...driveParam, batch],
  );
  const orphans = await rows<{ drive_id: string; art_id: string }>(
    db,
    `select d.drive_id, d.art_id
       from search_documents d
       left join artifacts a on a.id = d.art_id and a.drive_id = d.drive_id
      where ((a.id is not null and a.deleted_at is not null and a.deleted_at < clock_timestamp() - make_interval(secs => ?))
          or (a.id is null and exists (select 1 from events e where e.drive_id = d.drive_id and e.art_id = d.art_id and e.action = ?)))
        ${drive('d')}
      limit ?`,
    [grace, EventAction.artifactPurged, ...driveParam, batch],
  );

  const result: SweepResult = { reindexed: 0, refreshed: 0, removed: 0 };
  for (const r of stale) {
    if (r.content_stale) {
      await applyHookCall(hooks, r.drive_id, r.art_id, { op: 'content', versionNumber: r.version_number });
      result.reindexed++;
    } else {
      await applyHookCall(hooks, r.drive_id, r.art_id, { op: 'record', patch: { path: r.path } });
      result.refreshed++;
    }
  }
  for (const r of orphans) {
    await applyHookCall(hooks, r.drive_id, r.art_id, { op: 'remove' });
    result.removed++;
  }
  return result;
}
