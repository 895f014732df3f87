/**
 * Indexing rounds take turns while writes arrive and indexing keeps up (docs/decisions/write-path.md, "Sixth round").
 *
 * A round is background work, but its statements are not small: the lexical documents and passages of a hundred
 * small writes take 20-75 ms of one PostgreSQL backend. The search topic has two shards, woken by the same commits
 * and gathering for the same time, so their rounds tend to run together: on a machine with two cores both are then
 * indexing, and the writes answered meanwhile wait for a core. So while commits keep arriving, the rounds of a topic
 * run one at a time in this process. Not when the topic falls behind (its last round finished a request that waited
 * KEEPING_UP_S or more: an ingest's backlog), nor with no write arriving: then they run side by side, as fast as the
 * cores allow, so giving way never costs more than a few seconds of freshness.
 *
 * Process-wide: every drainer of the worker hears the commits (drainLoop), and every indexing round asks.
 */

/** How recent the last commit must be for writes to count as arriving. */
const ARRIVING_WITHIN_MS = 250;
/** A topic keeps up while the requests its last round finished waited less than this (gathering included). */
export const KEEPING_UP_S = 3;

/** Per topic, how long the requests of its last round waited at most, in seconds. */
const lastWait = new Map<string, number>();

/** A drainer of `topic` finished requests that had waited `ages` seconds (settleBatch). */
export function noteWaits(topic: string, ages: number[]): void {
  if (ages.length) lastWait.set(topic, Math.max(...ages));
}

/** Whether the last round of `topic` finished requests that had waited KEEPING_UP_S or more. */
const fallenBehind = (topic: string): boolean => (lastWait.get(topic) ?? 0) >= KEEPING_UP_S;

let lastWriteAt = Number.NEGATIVE_INFINITY;

/** A commit's NOTIFY reached a drainer: a write has just been made. */
export function noteWrite(): void {
  lastWriteAt = Date.now();
}

/** Whether a write was made within the last ARRIVING_WITHIN_MS. */
export function writesArriving(): boolean {
  return Date.now() - lastWriteAt < ARRIVING_WITHIN_MS;
}

/** Per topic, the end of the last round that took a turn. */
const turns = new Map<string, Promise<void>>();

/**
 * Runs a round of `topic` after the rounds of it that took a turn before, while writes arrive and the topic keeps up;
 * at once otherwise.
 */
export async function takingTurns<T>(topic: string, round: () => Promise<T>): Promise<T> {
  if (!writesArriving() || fallenBehind(topic)) return round();
  const previous = turns.get(topic) ?? Promise.resolve();
  let release = () => {};
  turns.set(topic, new Promise<void>((resolve) => (release = resolve)));
  try {
    await previous;
    return await round();
  } finally {
    release();
  }
}
