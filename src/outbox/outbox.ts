import type { Config } from '../lib/config.js';
import type { Sql } from '../db/pool.js';
import { rows, type Db } from '../db/sql.js';
import { changeKindOf, type ArtifactChange } from './artifact-changes.js';

/**
 * The transactional outbox (docs/decisions.md, Indexing). A change that affects what an artifact
 * looks like from outside writes one request per interested topic in the same transaction as its
 * version and event (src/files/events.ts), so a committed write can never miss its indexing and a
 * rolled-back one never causes any. Drainers (src/outbox/drain.ts) claim the requests of a topic in
 * batches, hand them to the topic's handler and delete what it finished; failures wait out a backoff.
 */
export type OutboxTopic = 'search' | 'wiki' | 'compile' | 'embed';

/**
 * What changed: the bytes (or what is derived from them), only the record (path, labels, metadata), or the artifact
 * left.
 */
export type OutboxOp = 'content' | 'record' | 'remove';

export interface OutboxItem {
  driveId: string;
  artId: string;
  op: OutboxOp;
  /** The paths the change touched (the path, and a rename's `from`): auto-compile matches project folders by them. */
  paths?: string[];
}

/** The requests of one artifact within a batch, coalesced: handlers bring the artifact to its current state. */
export interface OutboxRequest {
  driveId: string;
  artId: string;
  ops: OutboxOp[];
  /** Every path its requests touched. */
  paths: string[];
}

export interface BatchProgress {
  /** Tells Temporal the drainer is alive (and what it is doing). */
  heartbeat(details?: unknown): void;
}

export interface OutboxHandler {
  topic: OutboxTopic;
  /**
   * Processes one batch; returns the artifacts that failed (their rows are retried with backoff); every other row is
   * done.
   */
  handle(batch: OutboxRequest[], progress: BatchProgress): Promise<Map<string, Error>>;
  /** Called when a drainer of the topic finds nothing to do: the moment to tidy up after work done in a burst. */
  idle?(): Promise<void>;
}

/** Runs `fn` over `items`, at most `limit` at a time (how handlers work through a batch). */
export async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, lane));
}

/**
 * The topics that hear about artifact changes: search always, the wiki when a language model is
 * configured, auto-compile always (its requests are queued only on drives with an auto-compile project).
 */
export function artifactTopics(config: Config): OutboxTopic[] {
  return config.llm ? ['search', 'wiki', 'compile'] : ['search', 'compile'];
}

/** Events that change what a compile reads (a label or metadata change, or a purge, does not). */
const COMPILE_ACTIONS: ReadonlySet<string> = new Set([
  'artifact.created',
  'artifact.updated',
  'artifact.copied',
  'artifact.renamed',
  'artifact.deleted',
  'artifact.restored',
]);

/** The outbox requests of one artifact change, one per interested topic. */
export function outboxItemsFor(topics: OutboxTopic[], change: ArtifactChange): (OutboxItem & { topic: OutboxTopic })[] {
  const op = changeKindOf(change.action, change.metadata);
  if (!op) return [];
  const m = change.metadata;
  const paths = [...new Set([m.path, m.from, m.to].filter((p): p is string => typeof p === 'string'))];
  return topics
    .filter((topic) => topic !== 'compile' || COMPILE_ACTIONS.has(change.action))
    .map((topic) => ({ topic, driveId: change.driveId, artId: change.artId, op, paths }));
}

/**
 * Inserts the requests in the JSON `items` (requestItems). Compile requests only for drives with an auto-compile
 * project: one index probe inside the same statement. `artOf`: a CTE whose row's id is the artifact of every item (a
 * statement that learns the id as it writes the row).
 */
export const insertRequestsSql = (
  items: string,
  artOf?: string,
) => `insert into outbox (topic, drive_id, art_id, op, paths)
  select i.t, i.d, ${artOf ? `${artOf}.id` : 'i.a'}, i.o, i.p
    from ${artOf ? `${artOf}, ` : ''}jsonb_to_recordset(${items}::jsonb) as i(t text, d text, a text, o text, p text[])
   where i.t <> 'compile' or exists (select 1 from projects pr where pr.drive_id = i.d and pr.auto_compile)`;
const INSERT_REQUESTS = insertRequestsSql('?');

/** The JSON parameter of insertRequestsSql. */
export const requestItems = (items: (OutboxItem & { topic: OutboxTopic })[]) =>
  JSON.stringify(items.map((i) => ({ t: i.topic, d: i.driveId, a: i.artId, o: i.op, p: i.paths ?? [] })));

const requestParams = (items: (OutboxItem & { topic: OutboxTopic })[]) => [requestItems(items)];

/**
 * The SQL that queues `items` as a data-modifying CTE, to prefix another statement with
 * (`with queued as (…) insert into events …`): an event and its requests cost one round trip.
 * Placeholders are `?` (MikroORM's raw SQL); `params` go before the main statement's.
 */
export function outboxCte(items: (OutboxItem & { topic: OutboxTopic })[]): { sql: string; params: unknown[] } {
  return { sql: `queued as (${INSERT_REQUESTS})`, params: requestParams(items) };
}

/** Queues topic-tagged `items` (from outboxItemsFor) inside the caller's transaction. */
export async function enqueue(tx: Db, items: (OutboxItem & { topic: OutboxTopic })[]): Promise<void> {
  if (items.length) await rows(tx, INSERT_REQUESTS, requestParams(items));
}

/**
 * Queues `items` for `topic` in a statement of their own: a topic's handler handing work on to another (search →
 * embed). Queued before the handler's own requests are settled, so a crash in between repeats the handler's work and
 * loses nothing.
 */
export async function queueRequests(db: Sql, topic: OutboxTopic, items: OutboxItem[]): Promise<void> {
  if (items.length) await db.query(insertRequestsSql('$1'), [requestItems(items.map((i) => ({ ...i, topic })))]);
}

/** Queues `items` for each of `topics` inside the caller's transaction (backfills, the consistency check). */
export async function enqueueArtifacts(tx: Db, topics: OutboxTopic[], items: OutboxItem[]): Promise<void> {
  await enqueue(
    tx,
    topics.flatMap((topic) => items.map((i) => ({ ...i, topic }))),
  );
}

export interface ClaimedBatch {
  requests: OutboxRequest[];
  /** Rows claimed (before coalescing): a full batch means a backlog. */
  rows: number;
  /** The newest row claimed: rows after it arrived while the batch ran and stay for the next one. */
  maxId: string;
}

/**
 * The oldest due requests of one shard of a topic, coalesced per artifact. An artifact always falls
 * in the same shard and each shard has one drainer (an advisory lock), so no artifact is ever
 * processed twice at once and a later request can never be overtaken by an older one.
 */
export async function claimBatch(
  db: Sql,
  topic: OutboxTopic,
  shard: { index: number; count: number },
  limit: number,
): Promise<ClaimedBatch> {
  const { rows } = await db.query<{ id: string; drive_id: string; art_id: string; op: OutboxOp; paths: string[] }>(
    `select id, drive_id, art_id, op, paths from outbox
      where topic = $1 and not_before <= now() and (hashtext(art_id) & 2147483647) % $2 = $3
      order by id limit $4`,
    [topic, shard.count, shard.index, limit],
  );
  const byArtifact = new Map<string, OutboxRequest>();
  for (const r of rows) {
    const request = byArtifact.get(r.art_id) ?? { driveId: r.drive_id, artId: r.art_id, ops: [], paths: [] };
    if (!request.ops.includes(r.op)) request.ops.push(r.op);
    for (const p of r.paths) if (!request.paths.includes(p)) request.paths.push(p);
    byArtifact.set(r.art_id, request);
  }
  return { requests: [...byArtifact.values()], rows: rows.length, maxId: rows.at(-1)?.id ?? '0' };
}

/** Longest wait before a failing artifact is tried again. */
export const MAX_BACKOFF_S = 300;

/**
 * Deletes the finished artifacts' requests up to the batch's last row (older ones still backing off
 * included: the artifact is now current) and pushes the failed ones back: 2, 4, 8 … 300 s. Returns the
 * finished requests' ages in seconds (queued → done: for topic search, write → findable).
 */
export async function settleBatch(
  db: Sql,
  topic: OutboxTopic,
  batch: ClaimedBatch,
  failures: Map<string, Error>,
): Promise<number[]> {
  const done = batch.requests.filter((r) => !failures.has(r.artId)).map((r) => r.artId);
  let ages: number[] = [];
  if (done.length) {
    const { rows } = await db.query<{ age_s: number }>(
      `delete from outbox where topic = $1 and id <= $2 and art_id = any($3::text[])
       returning extract(epoch from clock_timestamp() - created_at)::float8 as age_s`,
      [topic, batch.maxId, done],
    );
    ages = rows.map((r) => r.age_s);
  }
  if (failures.size) {
    const failed = [...failures].map(([artId, err]) => ({ a: artId, e: String(err.message ?? err).slice(0, 2000) }));
    await db.query(
      `update outbox o set attempts = o.attempts + 1, last_error = f.e,
              not_before = now() + make_interval(secs => least($4::float8, power(2, o.attempts + 1)))
         from jsonb_to_recordset($3::jsonb) as f(a text, e text)
        where o.topic = $1 and o.id <= $2 and o.art_id = f.a`,
      [topic, batch.maxId, JSON.stringify(failed), MAX_BACKOFF_S],
    );
  }
  return ages;
}

export interface OutboxDepth {
  topic: string;
  depth: number;
  /** Age of the oldest waiting request, in seconds. */
  oldest_s: number;
  /** Requests that failed at least once and wait out a backoff. */
  retrying: number;
}

/** Waiting requests per topic (readiness details and the drainers' logs). */
export async function outboxDepth(db: Sql): Promise<OutboxDepth[]> {
  const { rows } = await db.query<OutboxDepth>(
    `select topic, count(*)::int as depth, coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as oldest_s,
            count(*) filter (where attempts > 0)::int as retrying
       from outbox group by topic order by topic`,
  );
  return rows;
}

/** Counting stops here: a backlog this deep is an alert either way, and a scrape stays a bounded read. */
export const GAUGE_COUNT_CAP = 100_000;

/**
 * Per topic (every one of `topics`, waiting or not): requests waiting (counted up to GAUGE_COUNT_CAP), the oldest
 * one's age (0 when none waits) and how many back off after a failure. Index reads only (outbox_topic_idx): the
 * metrics endpoint runs it at every scrape.
 */
export async function outboxLag(db: Sql, topics: readonly string[]): Promise<OutboxDepth[]> {
  const { rows } = await db.query<OutboxDepth>(
    `select t.topic, c.depth, coalesce(extract(epoch from now() - o.created_at), 0)::float8 as oldest_s, c.retrying
       from unnest($1::text[]) as t(topic)
       cross join lateral (select count(*)::int as depth, count(*) filter (where attempts > 0)::int as retrying
                             from (select attempts from outbox where topic = t.topic order by id limit $2) capped) c
       left join lateral (select created_at from outbox where topic = t.topic order by id limit 1) o on true`,
    [topics, GAUGE_COUNT_CAP],
  );
  return rows;
}
