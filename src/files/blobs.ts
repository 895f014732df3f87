import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { deleteBlobObject, putBlob } from '../storage/blob-store.js';
import type { SpooledBody } from '../storage/spool.js';
import { one, rows, transaction, type Db } from '../db/sql.js';

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
 */

/**
 * The one way bytes become a blob: touch the row, then (unless already stored) run `write`, which
 * puts the object under `hash`; a failed write takes back the touch of a row still not stored.
 * The touch is one autocommitted statement, so the purge sees it before the object is written;
 * the version's transaction then marks the blob stored (see pinBlob). Returns `written`.
 */
export async function writeBlobOnce(
  ctx: AppContext,
  blob: { hash: string; size: number },
  write: () => Promise<void>,
): Promise<{ written: boolean }> {
  const db = ctx.orm.em.fork();
  const touched = await one<{ stored: boolean }>(
    db,
    `insert into blobs (hash, size_bytes) values (?, ?) on conflict (hash) do update set last_used_at = now() returning stored`,
    [blob.hash, blob.size],
  );
  if (touched?.stored) return { written: false };
  try {
    await write();
  } catch (err) {
    await rows(db, `delete from blobs where hash = ? and not stored`, [blob.hash]).catch(() => undefined);
    throw err;
  }
  return { written: true };
}

/** Makes the bytes of a spooled body available under their hash; writes nothing new when already stored. */
export function storeBlob(ctx: AppContext, body: SpooledBody): Promise<{ written: boolean }> {
  return writeBlobOnce(ctx, body, () => putBlob(ctx.s3, ctx.config.s3.bucket, body.hash, body.body(), body.size));
}

/**
 * Inside a write transaction: pins the blob (row lock until commit) before a version references it.
 * `justWritten` (an upload that has just put the object) also marks it stored; otherwise (a copy, or
 * an upload that found the bytes stored) the row must already say stored.
 */
export async function pinBlob(tx: Db, hash: string, justWritten = false): Promise<void> {
  const pinned = await one(
    tx,
    justWritten
      ? `update blobs set last_used_at = now(), stored = true where hash = ? returning hash`
      : `update blobs set last_used_at = now() where hash = ? and stored returning hash`,
    [hash],
  );
  if (!pinned) throw new AppError('STORAGE_FAILURE', 'content is not available in object storage; retry the request');
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
