import type { AppContext } from '../platform/context.js';
import { newId } from '../lib/ids.js';
import { artifactTopics, enqueue, outboxCte, outboxItemsFor } from '../outbox/outbox.js';
import type { ArtifactChange } from '../outbox/artifact-changes.js';
import { one, transaction, type Db } from '../db/sql.js';
import { currentRun, runColumns, type RunScope } from '../platform/run-scope.js';
import { chargeRefused, chargeStatement, type StorageCharge } from './quota.js';
import { currentFence } from '../platform/fence-scope.js';
import { LeaseGuard, targetsOfEvent } from './leases/lease-guard.js';

/** The columns an event row is written with, in this order. */
export const EVENT_COLUMNS =
  '(id, drive_id, art_id, fld_id, action, actor_name, metadata, run_id, credential_kind, credential_name)';

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
   * Charges a version's bytes to its drive's storage in the next event's statement (or just before commit when no
   * event follows), so the counter row and the drive's seq row are both taken by the transaction's last statement:
   * writers of one drive wait for each other over that statement and the commit only (docs/decisions/write-path.md).
   */
  charge(c: StorageCharge): void;
  /**
   * Records artifact events already inserted in bulk (INSERT ... SELECT): queues their outbox requests, and hooks still
   * hear them.
   */
  noteArtifactChanges(changes: ArtifactChange[]): Promise<void>;
}

export async function writeTransaction<T>(ctx: AppContext, fn: (w: WriteTx) => Promise<T>): Promise<T> {
  let changes: ArtifactChange[] = [];
  const topics = artifactTopics(ctx.config);
  const fence = currentFence();
  const result = await transaction(ctx, async (tx) => {
    changes = [];
    // Every recorded change asks the drive's leases first (issue 56); a refusal rolls the whole write back.
    const leases = new LeaseGuard(tx, fence);
    let charges: StorageCharge[] = [];
    /**
     * Runs `main` (it selects from the CTE `counted`) after `ctes` and the pending charges; 413 when one was refused.
     * `counted` reads every charge first, so the counter rows are locked before the drive's seq row, as the purge does.
     */
    const withCharges = async (
      ctes: { sql: string; params: unknown[] }[],
      main: (returned: string) => string,
      params: unknown[],
    ) => {
      const pending = charges;
      charges = [];
      const folded = pending.map((c, i) => ({
        ...chargeStatement(c),
        sql: `charge${i} as (${chargeStatement(c).sql})`,
      }));
      const counts = pending.map((_, i) => `(select count(*) from charge${i})::int as charge${i}`);
      const returned = pending.map((_, i) => `(select charge${i} from counted) as charge${i}`);
      const got = await one<Record<string, number>>(
        tx,
        `with ${[...ctes, ...folded].map((c) => c.sql).join(', ')}${ctes.length + folded.length ? ',' : ''}
         counted as (select ${['1 as one', ...counts].join(', ')}) ${main(['1 as one', ...returned].join(', '))}`,
        [...ctes.flatMap((c) => c.params), ...folded.flatMap((c) => c.params), ...params],
      );
      const refused = pending.find((_, i) => !got?.[`charge${i}`]);
      if (refused) throw await chargeRefused(tx, refused);
    };
    const out = await fn({
      tx,
      charge(c) {
        charges.push(c);
      },
      async event(e) {
        await leases.admit(e.driveId, targetsOfEvent(e));
        const id = newId('evt');
        const metadata = e.metadata ?? {};
        const change: ArtifactChange | null = e.artId
          ? { driveId: e.driveId, artId: e.artId, action: e.action, eventId: id, metadata }
          : null;
        const items = change ? outboxItemsFor(topics, change) : [];
        const run = e.run ?? currentRun();
        await withCharges(
          items.length ? [outboxCte(items)] : [],
          (returned) =>
            `insert into events ${EVENT_COLUMNS} select ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ? from counted returning ${returned}`,
          [
            id,
            e.driveId,
            e.artId ?? null,
            e.fldId ?? null,
            e.action,
            e.actor ?? null,
            JSON.stringify(metadata),
            ...runColumns(run, e.driveId),
          ],
        );
        if (change) changes.push(change);
        return id;
      },
      async noteArtifactChanges(more) {
        for (const c of more) await leases.admit(c.driveId, targetsOfEvent(c));
        changes.push(...more);
        await enqueue(
          tx,
          more.flatMap((c) => outboxItemsFor(topics, c)),
        );
      },
    });
    // Charges no event took along: their own statement, before commit.
    if (charges.length) await withCharges([], () => `select * from counted`, []);
    return out;
  });
  const failures = await ctx.artifactChanges.publish(changes);
  for (const err of failures) ctx.logger.error({ err }, 'artifact change listener failed');
  return result;
}
