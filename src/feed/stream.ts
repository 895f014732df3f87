import type { RequestContext } from '../platform/request-context.js';
import type { Db } from '../db/sql.js';
import { eventsAfter, latestSeq, type EventFilter, type EventRow } from '../files/events.js';
import { AppError } from '../lib/errors.js';
import { driveHeads } from './drive-heads.js';
import { takeStreamSlot } from './stream-slots.js';

/**
 * Events read per query while a stream catches up. A stream whose client stopped reading holds its socket's buffer and
 * the rest of this page, so the page is small: 40 stalled streams over a long history held 10-24 MB at 200 (the
 * page's rows as objects), which the 16 MB bound of test/feed/stream-bounds.test.ts does not always cover.
 */
const PAGE = 50;

export interface StreamInput {
  /** Resume point (`Last-Event-ID` or `?after`): every event with a larger seq follows. Absent: from now. */
  after?: number;
  filter: EventFilter;
  /** Ends the stream (the client went away, the server stops). */
  signal: AbortSignal;
  /** The client's address, for the per-address cap on open streams. */
  address: string;
}

/**
 * The drive's change feed as an endless sequence: first every event after the resume point, oldest
 * first, then each new one as its write commits, with no gap or repeat (the seq is gap-free as
 * readers see it, docs/decisions/feed.md). Reads only PostgreSQL, so any API process serves any stream.
 * "Now" (no resume point) is fixed before this resolves, so a write made after it is always streamed.
 */
export async function openEventStream(rc: RequestContext, input: StreamInput): Promise<AsyncGenerator<EventRow>> {
  const db = rc.app.orm.em.fork();
  const head = await latestSeq(db, rc.driveId);
  // Seqs have no gaps, so the distance is the number of events to replay (fewer once filtered).
  const { catchUpMax } = rc.app.config.feed;
  if (input.after !== undefined && head - input.after > catchUpMax)
    throw new AppError(
      'FEED_GAP_TOO_LARGE',
      `${head - input.after} events since seq ${input.after}, more than a stream replays (${catchUpMax}); ` +
        `page GET /v0/events?after=${input.after} up to seq ${head - catchUpMax} or later, then resume the stream`,
      { catch_up_url: `/v0/events?after=${input.after}`, head },
    );
  // Taken last, so a refused stream holds no slot; released when the stream ends however it ends.
  const slot = takeStreamSlot(rc, input.address);
  input.signal.addEventListener('abort', () => slot.release(), { once: true });
  if (input.signal.aborted) slot.release();
  return follow(rc, db, input.after ?? head, input);
}

async function* follow(rc: RequestContext, db: Db, start: number, input: StreamInput): AsyncGenerator<EventRow> {
  const heads = driveHeads(rc.app);
  let position = start;
  while (!input.signal.aborted) {
    const head = await heads.beyond(rc.driveId, position, input.signal);
    // Everything up to `head` is committed and visible; filtered-out events are skipped by moving to it.
    while (position < head && !input.signal.aborted) {
      const page = await eventsAfter(db, rc.driveId, position, input.filter, PAGE, head);
      for (const row of page) yield row;
      position = page.length < PAGE ? head : Number(page[page.length - 1]!.seq);
    }
  }
}
