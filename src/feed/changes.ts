import type { RequestContext } from '../platform/request-context.js';
import { rows } from '../db/sql.js';
import { eventFilterSql, eventsAfter, latestSeq, type EventRow } from '../files/events.js';

export interface ChangesInput {
  /** Events after this seq; absent: the most recent `limit` events. */
  since?: number;
  prefix?: string;
  limit: number;
}

/**
 * What changed on the drive since a seq, oldest first, and the seq to pass next (the MCP `changes`
 * tool). `next_since` moves past filtered-out events too, so an agent polling with it never rereads them.
 */
export async function changesSince(rc: RequestContext, input: ChangesInput) {
  const db = rc.app.orm.em.fork();
  // Everything up to the head is committed and visible (the seq is gap-free as readers see it).
  const head = await latestSeq(db, rc.driveId);
  const filter = { prefix: input.prefix };
  let items: EventRow[];
  if (input.since === undefined) {
    const { where, params } = eventFilterSql(rc.driveId, filter);
    items = (
      await rows<EventRow>(
        db,
        `select e.* from events e where ${where.join(' and ')} and e.seq <= ?::int8 order by e.seq desc limit ?`,
        [...params, String(head), input.limit],
      )
    ).reverse();
    return { items, nextSince: head, more: false };
  }
  items = await eventsAfter(db, rc.driveId, input.since, filter, input.limit, head);
  const more = items.length >= input.limit;
  return { items, nextSince: more ? Number(items.at(-1)!.seq) : Math.max(head, input.since), more };
}
