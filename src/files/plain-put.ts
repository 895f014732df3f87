import type { AppContext } from '../platform/context.js';
import { newId } from '../lib/ids.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import { isUniqueViolation, one, pgCode } from '../db/sql.js';
import { currentRun, runColumns } from '../platform/run-scope.js';
import { currentFence } from '../platform/fence-scope.js';
import { artifactTopics, insertRequestsSql, outboxItemsFor, requestItems } from '../outbox/outbox.js';
import { fileTypeOf } from './artifact-rules.js';
import { blobUnavailable, inlinePinSql, type BlobArrival } from './blobs.js';
import { EventAction } from './events.js';
import { chargeRefused, chargeSql } from './quota.js';
import { versionRowSql } from './version-write.js';
import { EVENT_COLUMNS } from './write-transaction.js';
import { DEFAULT_CONTENT_TYPE, type PutInput } from './put-input.js';

/**
 * The write agents make most: a PUT by path with no precondition (no If-Match, no artifact id, no visibility change).
 * It is the same write as createOrLock + appendVersion in a write transaction, done by ONE autocommitted statement sent
 * as a named prepared statement: no BEGIN and COMMIT round trips, one plan per connection instead of two per write, and
 * the drive's hot rows (storage counter, event seq) held from that statement's charge to its commit, with no client
 * round trip in between (docs/decisions/write-path.md, "Third round" and "Fourth round").
 *
 * Its order of locks is the transactions' order: the path's live row, the blob row (bytes in S3), the counter, the seq
 * row. A refused charge or an unpinned blob writes nothing (every row hangs on them); a path created by a concurrent
 * request between the snapshot and the insert raises a unique violation, which undoes the whole statement, charge
 * included, and the PUT is tried again as an overwrite.
 */
export const isPlainPut = (input: PutInput): boolean =>
  !input.artId && input.ifMatch === undefined && input.visibility === undefined;

/**
 * Bytes in S3: the blob row is pinned after the artifact's row, as pinBlob does (stored, or put just now: $17 marks it
 * stored), and the charge hangs on the pin. A refused charge keeps that mark (the object is in S3): no version
 * references the row, so the purge takes both after its grace, as after any failed write.
 */
const PIN_THEN_CHARGE = `pinned as (
    update blobs set last_used_at = now(), stored = stored or $17::boolean
     where hash = $9 and (stored or $17::boolean) and (select count(*) from live) >= 0
     returning hash
  ), charge as (${chargeSql({ driveId: '$1', bytes: '$8', quotaBytes: '$18', requires: 'pinned' })})`;
/** Bytes inline ($17): charged after the artifact's row, then kept in the blob row once the version is written. */
const CHARGE = `charge as (${chargeSql({ driveId: '$1', bytes: '$8', quotaBytes: '$18', after: 'live' })})`;
const KEEP_INLINE = `p as (${inlinePinSql('select hash, size_bytes, true, $17::bytea from a')}),`;

const putStatement = (bytes: 'inline' | 'stored') => `with gate as (select lease_gate($1, $25::int8) as open
  ), live as (
    select id from artifacts where drive_id = $1 and path = $2 and deleted_at is null and (select open from gate)
       for update
  ), ${bytes === 'stored' ? PIN_THEN_CHARGE : CHARGE}, updated as (
    update artifacts set version_number = version_number + 1, size_bytes = $8, hash = $9,
       content_type = coalesce($4, content_type), file_type = coalesce($5, file_type),
       labels = coalesce($10::text[], labels), metadata = coalesce($11::jsonb, metadata),
       source = case when $12::boolean then $13::jsonb else source end, filename = coalesce($14, filename),
       updated_at = clock_timestamp(), indexed_at = null, embedded_at = null
     where id = (select id from live) and exists (select from charge)
     returning *
  ), created as (
    insert into artifacts
      (id, drive_id, path, content_type, file_type, size_bytes, hash, version_number, labels, metadata, source, visibility,
       filename)
    select $3, $1, $2, coalesce($4, $6), coalesce($5, $7), $8, $9, 1, coalesce($10::text[], '{}'),
           coalesce($11::jsonb, '{}'), $13::jsonb, 'private', $14
     where not exists (select from live) and exists (select from charge)
     returning *
  ), a as (
    select *, true as overwrote from updated union all select *, false from created
  ), v as (${versionRowSql('$15', '$16')}
  ), ${bytes === 'inline' ? KEEP_INLINE : ''} e as (
    insert into events ${EVENT_COLUMNS}
    select $19, drive_id, id, null,
           case when overwrote then '${EventAction.artifactUpdated}' else '${EventAction.artifactCreated}' end,
           $15, $20::jsonb || jsonb_build_object('version_number', version_number), $21, $22, $23
      from a
  ), q as (${insertRequestsSql('$24', 'a')})
  select * from a`;

/**
 * The gate's fence ($25; src/db/migrations/Migration20270106000000_lease_gate.ts): the presented one (none: no lease
 * is older), or null for the service's own work, which leases never hold.
 */
function leaseGateFence(): number | null {
  const scope = currentFence();
  return scope ? (scope.fence ?? Number.MAX_SAFE_INTEGER) : null;
}

/** The gate refused the one-statement path: a lease may hold the write, which the checked path decides. */
export const leaseMayHold = (err: unknown): boolean => pgCode(err) === 'AD423';

const STATEMENTS = {
  inline: { name: 'put_inline', sql: putStatement('inline') },
  stored: { name: 'put_stored', sql: putStatement('stored') },
};

/** Creates or overwrites `input.path` with the bytes (see BlobArrival); 413 when over quota. */
export async function plainPut(
  ctx: AppContext,
  input: PutInput,
  body: { hash: string; size: number },
  arrival: BlobArrival,
): Promise<ArtifactRow> {
  const quotaBytes = input.system ? Number.MAX_SAFE_INTEGER : ctx.config.limits.storageQuotaBytes;
  const eventId = newId('evt');
  const metadata = { path: input.path, size_bytes: body.size, hash: body.hash, change_summary: input.changeSummary };
  const statement = STATEMENTS[typeof arrival === 'object' ? 'inline' : 'stored'];
  const row = await runPut(ctx, statement, paramsOf(ctx, input, body, arrival, { quotaBytes, eventId, metadata }));
  if (!row) throw await nothingWritten(ctx, input, body, arrival, quotaBytes);
  const { overwrote, ...artifact } = row;
  const failures = await ctx.artifactChanges.publish([
    {
      driveId: artifact.drive_id,
      artId: artifact.id,
      action: overwrote ? EventAction.artifactUpdated : EventAction.artifactCreated,
      eventId,
      metadata: { ...metadata, version_number: artifact.version_number },
    },
  ]);
  for (const err of failures) ctx.logger.error({ err }, 'artifact change listener failed');
  return artifact;
}

/**
 * Why the statement wrote nothing: bytes in S3 whose blob row could not be pinned (purged meanwhile: 503, the caller
 * retries), else a refused charge (413).
 */
async function nothingWritten(
  ctx: AppContext,
  input: PutInput,
  body: { hash: string; size: number },
  arrival: BlobArrival,
  quotaBytes: number,
) {
  const db = ctx.orm.em.fork();
  const pinnable =
    typeof arrival === 'object' ||
    (await one(db, `select 1 from blobs where hash = ? and (stored or ?)`, [body.hash, arrival]));
  if (!pinnable) return blobUnavailable();
  return chargeRefused(db, { driveId: input.driveId, bytes: body.size, quotaBytes });
}

/** The statement's parameters, $1 to $25 in order. */
function paramsOf(
  ctx: AppContext,
  input: PutInput,
  body: { hash: string; size: number },
  arrival: BlobArrival,
  e: { quotaBytes: number; eventId: string; metadata: Record<string, unknown> },
): unknown[] {
  const run = currentRun();
  // What the outbox is asked for (the artifact id comes from the row): created and updated queue the same requests.
  const items = outboxItemsFor(artifactTopics(ctx.config), {
    driveId: input.driveId,
    artId: '',
    action: EventAction.artifactCreated,
    eventId: null,
    metadata: { path: input.path },
  });
  return [
    input.driveId,
    input.path,
    newId('art'),
    input.contentType ?? null,
    input.contentType === undefined ? null : fileTypeOf(input.path, input.contentType),
    DEFAULT_CONTENT_TYPE,
    fileTypeOf(input.path, DEFAULT_CONTENT_TYPE),
    body.size,
    body.hash,
    input.labels ?? null,
    input.metadata ? JSON.stringify(input.metadata) : null,
    input.source !== undefined,
    input.source ? JSON.stringify(input.source) : null,
    input.filename ?? null,
    input.actor,
    input.changeSummary,
    typeof arrival === 'object' ? arrival.inline : arrival,
    e.quotaBytes,
    e.eventId,
    JSON.stringify(e.metadata),
    ...runColumns(run, input.driveId),
    requestItems(items),
    leaseGateFence(),
  ];
}

/**
 * Runs the statement; undefined when it wrote nothing (nothingWritten says why). Runs it again after a unique violation
 * (a concurrent create of the path: it is overwritten now) or a deadlock with a multi-statement write; each run either
 * wrote everything or nothing.
 */
async function runPut(ctx: AppContext, statement: { name: string; sql: string }, params: unknown[]) {
  for (let attempt = 1; ; attempt++) {
    try {
      const { rows } = await ctx.pool.prepared<ArtifactRow & { overwrote: boolean }>(
        statement.name,
        statement.sql,
        params,
        { timestampsAsText: true },
      );
      return rows[0];
    } catch (err) {
      const again = isUniqueViolation(err) || pgCode(err) === '40P01' || pgCode(err) === '40001';
      if (!again || attempt >= 5) throw err;
    }
  }
}
