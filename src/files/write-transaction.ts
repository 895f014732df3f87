import type { AppContext } from '../platform/context.js';
import { newId } from '../lib/ids.js';
import { artifactTopics, enqueue, outboxCte, outboxItemsFor } from '../outbox/outbox.js';
import type { ArtifactChange } from '../outbox/artifact-changes.js';
import { rows, transaction, type Db } from '../db/sql.js';
import { currentRun, type RunScope } from '../platform/run-scope.js';

export interface NewEvent {
  driveId: string;
  action: string;
  artId?: string | null;
  fldId?: string | null;
  actor?: string | null;
  metadata?: Record<string, unknown>;
  /** The run it belongs to; by default the request's (src/platform/run-scope.ts), none for the service's own work. */
  run?: RunScope;
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
        const run = e.run ?? currentRun();
        await rows(
          tx,
          `${queued ? `with ${queued.sql} ` : ''}insert into events (id, drive_id, art_id, fld_id, action, actor_name, metadata, run_id, credential_kind) values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)`,
          [
            ...(queued?.params ?? []),
            id,
            e.driveId,
            e.artId ?? null,
            e.fldId ?? null,
            e.action,
            e.actor ?? null,
            JSON.stringify(metadata),
            run?.runId ?? null,
            run?.credentialKind ?? null,
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
  const failures = await ctx.artifactChanges.publish(changes);
  for (const err of failures) ctx.logger.error({ err }, 'artifact change listener failed');
  return result;
}
