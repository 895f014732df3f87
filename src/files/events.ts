import type { RequestContext } from '../platform/request-context.js';
import type { Timestamp } from '../lib/time.js';
import { decodeCursor, encodeCursor } from '../lib/cursors.js';
import { one, rows, type Db } from '../db/sql.js';

/** Event actions this service records (spec 4.5 / 6; only `artifact.renamed` is named there). */
export const EventAction = {
  artifactCreated: 'artifact.created',
  artifactUpdated: 'artifact.updated',
  artifactRenamed: 'artifact.renamed',
  artifactMetadataUpdated: 'artifact.metadata_updated',
  artifactCopied: 'artifact.copied',
  artifactDeleted: 'artifact.deleted',
  artifactRestored: 'artifact.restored',
  artifactPurged: 'artifact.purged',
  folderCreated: 'folder.created',
  folderUpdated: 'folder.updated',
  folderMoved: 'folder.moved',
  folderDeleted: 'folder.deleted',
  folderPurged: 'folder.purged',
  driveDeleted: 'drive.deleted',
  driveRestored: 'drive.restored',
  grantCreated: 'grant.created',
  grantUpdated: 'grant.updated',
  grantRevoked: 'grant.revoked',
  shareCreated: 'share.created',
  shareRotated: 'share.rotated',
  shareRevoked: 'share.revoked',
  // Written by the compile_jobs trigger (migration …_job_events), listed here for completeness: job.<status>.
  jobQueued: 'job.queued',
  jobRunning: 'job.running',
  jobSucceeded: 'job.succeeded',
  jobFailed: 'job.failed',
  jobCancelled: 'job.cancelled',
  jobTimedOut: 'job.timed_out',
} as const;

export interface EventRow {
  /** Per drive, strictly increasing in commit order, no gap a reader can see (assigned by a trigger; feed.md). */
  seq: string;
  id: string;
  drive_id: string;
  art_id: string | null;
  fld_id: string | null;
  action: string;
  actor_name: string | null;
  metadata: Record<string, unknown>;
  created_at: Timestamp;
  /** The run the change belongs to (docs/decisions/runs.md); null for the service's own work (purges, jobs). */
  run_id: string | null;
  credential_kind: string | null;
}

/** Filters shared by the list, the stream, webhooks and the MCP `changes` tool (AND-combined). */
export interface EventFilter {
  artId?: string;
  action?: string;
  /** Matches events whose `path`, `from` or `to` starts with it (artifact and folder events). */
  prefix?: string;
  runId?: string;
}

export interface EventQuery extends EventFilter {
  since?: Date;
  before?: Date;
  /** Oldest first from here (`seq > after`); without it the log reads newest first (spec 4.5). */
  after?: number;
  cursor?: string;
  limit: number;
}

/** The WHERE clause of a filter on one drive's events (`e` is the events table). */
export function eventFilterSql(driveId: string, f: EventFilter): { where: string[]; params: unknown[] } {
  const where = ['e.drive_id = ?'];
  const params: unknown[] = [driveId];
  if (f.artId) (where.push('e.art_id = ?'), params.push(f.artId));
  if (f.action) (where.push('e.action = ?'), params.push(f.action));
  if (f.runId) (where.push('e.run_id = ?'), params.push(f.runId));
  if (f.prefix) {
    where.push(`(starts_with(e.metadata->>'path', ?) or starts_with(e.metadata->>'from', ?)
                 or starts_with(e.metadata->>'to', ?))`);
    params.push(f.prefix, f.prefix, f.prefix);
  }
  return { where, params };
}

/**
 * Events of the drive with `after < seq <= upTo` that pass the filter, oldest first (catch-up, streams,
 * `changes`).
 */
export async function eventsAfter(
  db: Db,
  driveId: string,
  after: number,
  f: EventFilter,
  limit: number,
  upTo?: number,
) {
  const { where, params } = eventFilterSql(driveId, f);
  where.push('e.seq > ?::int8');
  params.push(String(after));
  if (upTo !== undefined) (where.push('e.seq <= ?::int8'), params.push(String(upTo)));
  return rows<EventRow>(db, `select e.* from events e where ${where.join(' and ')} order by e.seq limit ?`, [
    ...params,
    limit,
  ]);
}

/** The drive's newest committed seq (0 before its first event): where a stream without a resume point starts. */
export async function latestSeq(db: Db, driveId: string): Promise<number> {
  const r = await one<{ event_seq: string }>(db, 'select event_seq from drives where id = ?', [driveId]);
  return Number(r?.event_seq ?? 0);
}

interface EventCursor {
  /** The last seq of the previous page. */
  s: string;
  /** Set on oldest-first (`after`) pages. */
  a?: 1;
}
const isEventCursor = (v: unknown): v is EventCursor =>
  typeof (v as EventCursor).s === 'string' && /^\d{1,19}$/.test((v as EventCursor).s);

/**
 * Newest first, or oldest first from `after`; keyset on the drive's seq so deep pages stay cheap and
 * stable. A cursor keeps the direction of the page that wrote it.
 */
export async function listEvents(rc: RequestContext, q: EventQuery) {
  const { where, params } = eventFilterSql(rc.driveId, q);
  if (q.since) (where.push('e.created_at >= ?'), params.push(q.since));
  if (q.before) (where.push('e.created_at < ?'), params.push(q.before));
  const cursor = q.cursor ? decodeCursor(q.cursor, isEventCursor) : undefined;
  const ascending = cursor ? cursor.a === 1 : q.after !== undefined;
  const from = cursor?.s ?? (q.after !== undefined ? String(q.after) : undefined);
  if (from !== undefined) (where.push(`e.seq ${ascending ? '>' : '<'} ?::int8`), params.push(from));
  params.push(q.limit + 1);
  const found = await rows<EventRow>(
    rc.app.orm.em.fork(),
    `select e.* from events e where ${where.join(' and ')} order by e.seq ${ascending ? 'asc' : 'desc'} limit ?`,
    params,
  );
  const page = found.slice(0, q.limit);
  const more = found.length > q.limit;
  const next = more ? encodeCursor({ s: page[page.length - 1].seq, ...(ascending ? { a: 1 } : {}) }) : null;
  return { items: page, next_cursor: next };
}
