import type { AppContext } from '../platform/context.js';
import { EventAction } from '../files/events.js';
import { rows, transaction } from '../db/sql.js';
import { enqueueArtifacts, type OutboxItem } from '../outbox/outbox.js';
import { CACHE_DAYS } from './embedding-cache.js';
import { CURRENT_EXTRACTORS } from '../lib/documents/state.js';

/**
 * A consistency check of the index against the artifacts, run after each cleanup purge. Every change
 * queues its indexing in its own transaction (the outbox), so nothing is missed on the way; what this
 * can still find is damage from outside that path: an engine restored from an older backup, rows
 * deleted by hand, a bug. It queues outbox requests for what it finds and logs a warning:
 * - a live artifact of a live drive with no document, an older version_number or another
 *   file_type → content; the same version at another path → record;
 * - a document whose passages an older extractor made (search_documents.extractor, src/lib/documents/state.ts) →
 *   content, so every old file of a kind is re-extracted when its extractor improves;
 * - a document whose artifact is in the trash, or was purged (an `artifact.purged` event exists) → remove.
 * Artifacts with a request still waiting in the outbox, or changed within `graceS`, are left alone.
 * Documents of a soft-deleted drive are left as they are (its credentials are refused; a restore
 * brings them back as they were).
 */
export interface SweepOptions {
  /** Seconds an artifact must have been unchanged before the check counts it. */
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
  content_stale: boolean;
}

export async function sweepSearchIndex(ctx: AppContext, opts: SweepOptions = {}): Promise<SweepResult | null> {
  // Cached vectors age out: they only spare the provider a repeat, which old texts rarely see.
  await ctx.pool.query(`delete from embedding_cache where created_at < now() - make_interval(days => $1)`, [
    CACHE_DAYS,
  ]);
  // The comparison is a join against the PostgreSQL engine's table; Typesense keeps its documents elsewhere.
  if (ctx.config.typesense) return null;
  const grace = opts.graceS ?? SWEEP_GRACE_S;
  const batch = opts.batch ?? SWEEP_BATCH;
  const db = ctx.orm.em.fork();
  const drive = (alias: string) => (opts.driveId ? `and ${alias}.drive_id = ?` : '');
  const driveParam = opts.driveId ? [opts.driveId] : [];

  const stale = await rows<StaleRow>(
    db,
    `select a.drive_id, a.id as art_id,
            (d.art_id is null or d.version_number < a.version_number or d.file_type <> a.file_type
              or d.extractor <> all(string_to_array(?, ','))) as content_stale
       from artifacts a
       join drives dr on dr.id = a.drive_id and dr.deleted_at is null
       left join search_documents d on d.drive_id = a.drive_id and d.art_id = a.id
      where a.deleted_at is null and a.updated_at < clock_timestamp() - make_interval(secs => ?) ${drive('a')}
        and (d.art_id is null or d.version_number < a.version_number or d.file_type <> a.file_type or d.path <> a.path
             or d.extractor <> all(string_to_array(?, ',')))
        and not exists (select 1 from outbox o where o.topic = 'search' and o.art_id = a.id)
      order by a.updated_at
      limit ?`,
    [CURRENT_EXTRACTORS.join(','), grace, ...driveParam, CURRENT_EXTRACTORS.join(','), batch],
  );
  const orphans = await rows<{ drive_id: string; art_id: string }>(
    db,
    `select d.drive_id, d.art_id
       from search_documents d
       left join artifacts a on a.id = d.art_id and a.drive_id = d.drive_id
      where ((a.id is not null and a.deleted_at is not null and a.deleted_at < clock_timestamp() - make_interval(secs => ?))
          or (a.id is null and exists (select 1 from events e where e.drive_id = d.drive_id and e.art_id = d.art_id and e.action = ?)))
        and not exists (select 1 from outbox o where o.topic = 'search' and o.art_id = d.art_id)
        ${drive('d')}
      limit ?`,
    [grace, EventAction.artifactPurged, ...driveParam, batch],
  );

  const items: OutboxItem[] = [
    ...stale.map((r): OutboxItem => ({
      driveId: r.drive_id,
      artId: r.art_id,
      op: r.content_stale ? 'content' : 'record',
    })),
    ...orphans.map((r): OutboxItem => ({ driveId: r.drive_id, artId: r.art_id, op: 'remove' })),
  ];
  const result: SweepResult = {
    reindexed: stale.filter((r) => r.content_stale).length,
    refreshed: stale.filter((r) => !r.content_stale).length,
    removed: orphans.length,
  };
  if (items.length) {
    await transaction(ctx, (tx) => enqueueArtifacts(tx, ['search'], items));
    ctx.logger.warn(
      result,
      'search: the consistency check found the index out of step with the artifacts; requests queued',
    );
  }
  return result;
}
