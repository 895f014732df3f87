import type { AppContext } from '../platform/context.js';
import { newId } from '../lib/ids.js';
import type { RequestContext } from '../platform/request-context.js';
import type { Timestamp } from '../lib/time.js';
import { artifactTopics, enqueue, outboxCte, outboxItemsFor } from '../outbox/outbox.js';
import { publishArtifactChanges, type ArtifactChange } from '../outbox/artifact-changes.js';
import { decodeCursor, encodeCursor } from '../lib/cursors.js';
import { rows, transaction, type Db } from '../db/sql.js';

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
} as const;

export interface NewEvent {
  driveId: string;
  action: string;
  artId?: string | null;
  fldId?: string | null;
  actor?: string | null;
  metadata?: Record<string, unknown>;
}

/**
 * A transaction that records events. Each artifact event also queues its outbox requests in the same
 * statement (src/outbox/outbox.ts), so search, auto-compile and the wiki can never miss a committed
 * change; after commit the artifact hooks hear it too (the search engine's immediate patches).
 */
export interface WriteTx {
  tx: Db;
  event(e: NewEvent): Promise<string>;
  /**
   * Records artifact events already inserted in bulk (INSERT ... SELECT): queues their outbox requests, and hooks still
   * hear them.
   */
  noteArtifactChanges(changes: ArtifactChange[]): Promise<void>;
}

export async function writeTransaction<T>(ctx: AppContext, fn: (w: WriteTx) => Promise<T>): Promise<T> {
  let changes: ArtifactChange[] = [];
  const topics = artifactTopics(ctx.config);
  const result = await transaction(ctx, async (tx) => {
    changes = [];
    return fn({
      tx,
      async event(e) {
        const id = newId('evt');
        const metadata = e.metadata ?? {};
        const change: ArtifactChange | null = e.artId
          ? { driveId: e.driveId, artId: e.artId, action: e.action, eventId: id, metadata }
          : null;
        const items = change ? outboxItemsFor(topics, change) : [];
        const queued = items.length ? outboxCte(items) : null;
        await rows(
          tx,
          `${queued ? `with ${queued.sql} ` : ''}insert into events (id, drive_id, art_id, fld_id, action, actor_name, metadata) values (?, ?, ?, ?, ?, ?, ?::jsonb)`,
          [
            ...(queued?.params ?? []),
            id,
            e.driveId,
            e.artId ?? null,
            e.fldId ?? null,
            e.action,
            e.actor ?? null,
            JSON.stringify(metadata),
          ],
        );
        if (change) changes.push(change);
        return id;
      },
      async noteArtifactChanges(more) {
        changes.push(...more);
        await enqueue(
          tx,
          more.flatMap((c) => outboxItemsFor(topics, c)),
        );
      },
    });
  });
  const failures = await publishArtifactChanges(changes);
  for (const err of failures) ctx.logger.error({ err }, 'artifact change listener failed');
  return result;
}

export interface EventRow {
  seq: string;
  id: string;
  drive_id: string;
  art_id: string | null;
  fld_id: string | null;
  action: string;
  actor_name: string | null;
  metadata: Record<string, unknown>;
  created_at: Timestamp;
}

export interface EventQuery {
  artId?: string;
  action?: string;
  since?: Date;
  before?: Date;
  cursor?: string;
  limit: number;
}

/** Newest first; keyset on the event sequence so deep pages stay cheap and stable. */
export async function listEvents(rc: RequestContext, q: EventQuery) {
  const { driveId } = rc;
  const where = ['drive_id = ?'];
  const params: unknown[] = [driveId];
  if (q.artId) (where.push('art_id = ?'), params.push(q.artId));
  if (q.action) (where.push('action = ?'), params.push(q.action));
  if (q.since) (where.push('created_at >= ?'), params.push(q.since));
  if (q.before) (where.push('created_at < ?'), params.push(q.before));
  if (q.cursor) {
    const c = decodeCursor(
      q.cursor,
      (v): v is { s: string } => typeof (v as { s?: unknown }).s === 'string' && /^\d+$/.test((v as { s: string }).s),
    );
    where.push('seq < ?::int8');
    params.push(c.s);
  }
  params.push(q.limit + 1);
  const found = await rows<EventRow>(
    rc.app.orm.em.fork(),
    `select * from events where ${where.join(' and ')} order by seq desc limit ?`,
    params,
  );
  const page = found.slice(0, q.limit);
  const more = found.length > q.limit;
  return { items: page, next_cursor: more ? encodeCursor({ s: page[page.length - 1].seq }) : null };
}
