import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { deleteBlobObject, getBlobStream, putBlob, readBlob, type BlobRange } from '../storage/blob-store.js';
import { ASYNC_COMMIT, one, rows, transaction, type Db } from '../db/sql.js';
import { earlyQuotaRefused, fitsQuotaSql } from './quota.js';

/**
 * Content-addressed bytes. A `blobs` row per SHA-256; `stored` says a committed version has
 * confirmed the object is in S3;
 * `last_used_at` is touched by every upload and copy that is about to reference the hash.
 *
 * Why this never loses bytes (see docs/decisions.md "Blob purge"):
 * - an upload touches the row (committed) BEFORE it writes the object, and the version that
 *   references the hash is inserted in a transaction that re-touches the row (taking its row lock);
 * - a copy touches the row inside its transaction, which also takes the row lock;
 * - the purge locks the row FOR UPDATE, and only then checks that no version references the hash
 *   and that it was not touched within the grace period; it deletes the object and the row while
 *   holding the lock. A racing toucher waits for the lock, then finds no row and re-inserts it
 *   (an upload then writes the object again; a copy fails cleanly with 503 and writes nothing).
 *
 * Small bytes (up to INLINE_BLOB_MAX_BYTES) never reach S3: the version's transaction upserts the row with the bytes
 * in `content` (pinBlob with `{ inline }`), so the write is one transaction and the row lock orders it with a purge
 * as above. Every read goes through readBlobBytes / openBlob, which look in the row first.
 */

/**
 * The touch, one named prepared statement: upserts the row, but with an early quota given, only when the bytes fit it
 * (no row back: refused). Committed without waiting for its WAL flush: visible to the purge at once, and the version's
 * own commit flushes it; lost in a crash only together with the version, leaving at most that one object unreferenced.
 * `reuse`: the object is stored and a version of this same drive already references it. Dedup is per drive for the
 * write path's work (docs/decisions/write-path.md, "Dedup per drive"): bytes another drive holds are written again
 * (the same object, the same key), so how long an upload takes never tells whether any other tenant has those bytes.
 */
const TOUCH_BLOB = `insert into blobs (hash, size_bytes)
  select $1, $2::int8 from ${ASYNC_COMMIT}
   where $4::int8 is null or ${fitsQuotaSql({ driveId: '$3', bytes: '$2', quotaBytes: '$4' })}
  on conflict (hash) do update set last_used_at = now()
  returning stored and exists (select from artifact_versions v where v.hash = $1 and v.drive_id = $3) as reuse`;

/** The quota a body bound for S3 is checked against before it is written (and again, exactly, by its version). */
export interface EarlyQuota {
  driveId: string;
  quotaBytes: number;
}

/** The drive bytes are written for (dedup is per drive), with its quota when it is checked early. */
export type BlobOwner = { driveId: string; quotaBytes?: number };

/**
 * The one way bytes become a blob: touch the row, then (unless this drive already holds them) run `write`, which
 * puts the object under `hash`; a failed write takes back the touch of a row still not stored.
 * The touch is one autocommitted statement, so the purge sees it before the object is written;
 * the version's transaction then marks the blob stored (see pinBlob). Returns `written`. With a quota, bytes that
 * would pass it are refused (413) before anything is touched or written.
 */
export async function writeBlobOnce(
  ctx: AppContext,
  blob: { hash: string; size: number },
  write: () => Promise<void>,
  owner: BlobOwner,
): Promise<{ written: boolean }> {
  const params = [blob.hash, blob.size, owner.driveId, owner.quotaBytes ?? null];
  const [touched] = (await ctx.pool.prepared<{ reuse: boolean }>('touch_blob_per_drive', TOUCH_BLOB, params)).rows;
  // No row only when a quota was given and refused the bytes.
  if (!touched) throw await earlyQuotaRefused(ctx.orm.em.fork(), { ...(owner as EarlyQuota), bytes: blob.size });
  if (touched.reuse) return { written: false };
  try {
    await write();
  } catch (err) {
    await rows(ctx.orm.em.fork(), `delete from blobs where hash = ? and not stored`, [blob.hash]).catch(
      () => undefined,
    );
    throw err;
  }
  return { written: true };
}

/** Bytes about to become a blob: a spooled body, or a text the service writes itself. */
export interface IncomingBlob {
  hash: string;
  size: number;
  /** CRC-32 computed with the hash, over the same bytes: S3 checks the arrival against it instead of the SHA-256. */
  crc32?: number;
  /** The bytes: a Buffer when they are in memory, else a fresh stream. */
  body(): Buffer | Readable;
}

/**
 * How the bytes of a version's blob got there: `true` put in S3 just now, `false` already stored, `{ inline }` kept in
 * the row by the version's own transaction (pinBlob).
 */
export type BlobArrival = boolean | { inline: Buffer };

/** Makes the bytes of a body available under their hash in S3; writes nothing new when the drive holds them. */
export function storeBlob(ctx: AppContext, body: IncomingBlob, owner: BlobOwner): Promise<{ written: boolean }> {
  const write = () => putBlob(ctx.s3, ctx.config.s3.bucket, body.hash, () => body.body(), body.size, body.crc32);
  return writeBlobOnce(ctx, body, write, owner);
}

/**
 * Before a write's transaction: small bytes are kept inline by it (joined here when they arrived in pieces; no round
 * trip now, the write's statement charges them exactly); others go to S3 first (storeBlob), unless they would pass
 * the owner's quota: that early check keeps a doomed upload out of S3.
 */
export async function prepareBlob(ctx: AppContext, body: IncomingBlob, owner: BlobOwner): Promise<BlobArrival> {
  if (body.size <= ctx.config.limits.inlineBlobMaxBytes) {
    const bytes = body.body();
    return { inline: Buffer.isBuffer(bytes) ? bytes : await buffer(bytes) };
  }
  return (await storeBlob(ctx, body, owner)).written;
}

/** A text readied under its hash before the transaction that references it (prepareText). */
export interface PreparedText {
  hash: string;
  size: number;
  arrival: BlobArrival;
  bytes: Buffer;
}

/** prepareBlob for a text the service has in hand (a wiki page, a patched file): hashed here, inline when small. */
export async function prepareText(ctx: AppContext, text: string, owner: BlobOwner): Promise<PreparedText> {
  const bytes = Buffer.from(text, 'utf8');
  const hash = createHash('sha256').update(bytes).digest('hex');
  const body = { hash, size: bytes.length, crc32: crc32(bytes), body: () => bytes };
  return { hash, size: bytes.length, arrival: await prepareBlob(ctx, body, owner), bytes };
}

/**
 * Inside a write transaction: pins the blob (row lock until commit) before a version references it.
 * `true` (an upload that has just put the object) also marks it stored; `{ inline }` upserts the row with the bytes;
 * `false` (a copy, or an upload that found the bytes stored) needs the row to say stored already.
 */
export async function pinBlob(tx: Db, hash: string, arrival: BlobArrival = false): Promise<void> {
  const pin = pinBlobStatement(hash, arrival);
  if (!(await one(tx, pin.sql, pin.params))) throw blobUnavailable();
}

export const blobUnavailable = () =>
  new AppError('STORAGE_FAILURE', 'content is not available in object storage; retry the request');

/** Keeps bytes inline in their blob row: `rows` gives (hash, size_bytes, stored, content). */
export const inlinePinSql = (rows: string) => `insert into blobs (hash, size_bytes, stored, content) ${rows}
  on conflict (hash) do update set last_used_at = now(), stored = true, content = coalesce(blobs.content, excluded.content)
  returning hash`;

/**
 * pinBlob's statement (`returning hash`: no row, not pinned), for a caller that folds it into one of its own. `hash` is
 * a hash, or `{ of }`: the hash (and size) of the row in the caller's CTE `of`, so nothing is pinned when it is empty.
 */
export function pinBlobStatement(
  hash: string | { of: string },
  arrival: BlobArrival,
): { sql: string; params: unknown[] } {
  const fromRow = typeof hash === 'object';
  const target = fromRow ? `(select hash from ${hash.of})` : '?';
  const params = fromRow ? [] : [hash];
  if (typeof arrival === 'object')
    return {
      sql: inlinePinSql(
        fromRow
          ? `select hash, size_bytes, true, decode(?, 'base64') from ${hash.of}`
          : `values (?, ?, true, decode(?, 'base64'))`,
      ),
      params: [...(fromRow ? [] : [hash, arrival.inline.length]), arrival.inline.toString('base64')],
    };
  return {
    sql: arrival
      ? `update blobs set last_used_at = now(), stored = true where hash = ${target} returning hash`
      : `update blobs set last_used_at = now() where hash = ${target} and stored returning hash`,
    params,
  };
}

/** Deletes objects no version references and nobody touched within `graceS`; returns how many. */
export async function purgeUnreferencedBlobs(ctx: AppContext, graceS: number, limit = 500): Promise<number> {
  const db = ctx.orm.em.fork();
  const candidates = await rows<{ hash: string }>(
    db,
    `select b.hash from blobs b
      where b.last_used_at < now() - make_interval(secs => ?)
        and not exists (select 1 from artifact_versions v where v.hash = b.hash)
        and not exists (select 1 from feedback_attachments f where f.hash = b.hash)
      limit ?`,
    [graceS, limit],
  );
  let purged = 0;
  for (const { hash } of candidates) {
    const done = await transaction(ctx, async (tx) => {
      const locked = await one(
        tx,
        `select hash from blobs where hash = ? and last_used_at < now() - make_interval(secs => ?) for update skip locked`,
        [hash, graceS],
      );
      if (!locked) return false;
      if (await one(tx, `select 1 from artifact_versions where hash = ? limit 1`, [hash])) return false;
      // Feedback attachments are snapshots: they keep their bytes after the artifact is gone.
      if (await one(tx, `select 1 from feedback_attachments where hash = ? limit 1`, [hash])) return false;
      // Deleted even when not marked stored: an upload may have written it and then failed its transaction.
      await deleteBlobObject(ctx.s3, ctx.config.s3.bucket, hash);
      await rows(tx, `delete from blobs where hash = ?`, [hash]);
      return true;
    });
    if (done) purged++;
  }
  return purged;
}

/**
 * Reads look in the row first for blobs up to this size (the largest INLINE_BLOB_MAX_BYTES allows, so bytes kept
 * inline under a higher setting are still found after it is lowered); larger ones are always in S3.
 */
const INLINE_CEILING = 1024 * 1024;

/** The bytes kept in the blob row, or undefined when they are in object storage. */
async function inlineBytes(ctx: AppContext, hash: string, size?: number): Promise<Buffer | undefined> {
  if (size !== undefined && size > INLINE_CEILING) return undefined;
  const r = await one<{ content: Buffer | null }>(ctx.orm.em.fork(), `select content from blobs where hash = ?`, [
    hash,
  ]);
  return r?.content ?? undefined;
}

/** The whole bytes of a blob, wherever they are kept. */
export async function readBlobBytes(ctx: AppContext, hash: string, size?: number): Promise<Buffer> {
  return (await inlineBytes(ctx, hash, size)) ?? readBlob(ctx.s3, ctx.config.s3.bucket, hash);
}

/** The bytes of a blob, whole or one range: a Buffer when kept inline, else a stream from S3. */
export async function openBlob(
  ctx: AppContext,
  blob: { hash: string; size: number },
  range?: BlobRange,
): Promise<Buffer | Readable> {
  const inline = await inlineBytes(ctx, blob.hash, blob.size);
  if (inline) return range ? inline.subarray(range.start, range.end + 1) : inline;
  return getBlobStream(ctx.s3, ctx.config.s3.bucket, blob.hash, range);
}

/**
 * Before presigning an S3 URL: bytes kept inline are put in object storage too (the row keeps them; the purge deletes
 * both), so a presigned URL is always an ordinary S3 URL. Only reached when a signed URL is asked for a small file.
 */
export async function ensureInObjectStorage(ctx: AppContext, blob: { hash: string; size: number }): Promise<void> {
  const inline = await inlineBytes(ctx, blob.hash, blob.size);
  if (inline) await putBlob(ctx.s3, ctx.config.s3.bucket, blob.hash, inline, inline.length);
}
