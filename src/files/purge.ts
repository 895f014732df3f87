import type { AppContext } from '../platform/context.js';
import type { ArtifactChange } from '../outbox/artifact-changes.js';
import { purgeUnreferencedBlobs } from './blobs.js';
import { EventAction } from './events.js';
import { writeTransaction, type WriteTx } from './write-transaction.js';
import { rows } from '../db/sql.js';
import { releaseStorage } from './quota.js';

/**
 * The cleanup job's work (run by the Temporal schedule): hard-delete what passed its purge_at,
 * in batches of set-based statements, then the S3 objects no version references any more.
 * Artifacts and folders of a soft-deleted drive are left alone (their retention is rebased when
 * the drive is restored); the drive's own purge removes them with it.
 */
const BATCH = 200;

/**
 * A live snapshot at or after the artifact's first change pins it (issue 38): the drive as of the snapshot needs its
 * versions and bytes, so its purge waits until no such snapshot lives.
 */
export const PINNED_BY_SNAPSHOT = `select 1 from snapshots s where s.drive_id = a.drive_id
  and s.seq >= (select min(e.seq) from events e where e.drive_id = a.drive_id and e.art_id = a.id)`;

/**
 * Removes trashed artifacts for good, in the caller's transaction: their rows (versions follow), the storage they
 * held, and an `artifact.purged` event each (the outbox and the after-commit hub take them out of search). Their
 * blobs go with the next sweep once nothing references them. The cleanup job and "Delete forever" both call this.
 */
export async function removeArtifacts(
  w: WriteTx,
  doomed: { id: string; drive_id: string; path: string }[],
  actor: string | null,
): Promise<void> {
  const ids = doomed.map((r) => r.id);
  const sizes = await rows<{ drive_id: string; bytes: string }>(
    w.tx,
    `select drive_id, sum(size_bytes) as bytes from artifact_versions where art_id = any(array[?]::text[]) group by drive_id`,
    [ids],
  );
  await rows(w.tx, `delete from artifacts where id = any(array[?]::text[])`, [ids]);
  for (const s of sizes) await releaseStorage(w.tx, s.drive_id, Number(s.bytes));
  for (const r of doomed)
    await w.event({
      driveId: r.drive_id,
      artId: r.id,
      action: EventAction.artifactPurged,
      actor,
      metadata: { path: r.path },
    });
}

export async function purgeArtifacts(ctx: AppContext): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await writeTransaction(ctx, async (w) => {
      const doomed = await rows<{ id: string; drive_id: string; path: string }>(
        w.tx,
        `select a.id, a.drive_id, a.path from artifacts a join drives d on d.id = a.drive_id
          where a.deleted_at is not null and a.purge_at <= now() and d.deleted_at is null
            and not exists (${PINNED_BY_SNAPSHOT})
          order by a.purge_at limit ? for update of a skip locked`,
        [BATCH],
      );
      if (!doomed.length) return 0;
      await removeArtifacts(w, doomed, null);
      return doomed.length;
    });
    total += n;
    if (n < BATCH) return total;
  }
}

export async function purgeFolders(ctx: AppContext): Promise<number> {
  return writeTransaction(ctx, async (w) => {
    const gone = await rows<{ id: string; drive_id: string; path: string }>(
      w.tx,
      `delete from folders f using drives d
        where d.id = f.drive_id and d.deleted_at is null and f.deleted_at is not null and f.purge_at <= now()
        returning f.id, f.drive_id, f.path`,
    );
    for (const f of gone)
      await w.event({
        driveId: f.drive_id,
        fldId: f.id,
        action: EventAction.folderPurged,
        actor: null,
        metadata: { path: f.path },
      });
    return gone.length;
  });
}

/**
 * Drives past purge_at go with everything they own (FK cascades); their log goes too, so the
 * artifacts' `artifact.purged` changes carry no event, but their outbox requests are queued all the same.
 */
export async function purgeDrives(ctx: AppContext): Promise<number> {
  return writeTransaction(ctx, async (w) => {
    const artifacts = await rows<{ id: string; drive_id: string }>(
      w.tx,
      `select a.id, a.drive_id from artifacts a join drives d on d.id = a.drive_id where d.purge_at is not null and d.purge_at <= now() for update of d`,
    );
    const drives = await rows<{ id: string }>(
      w.tx,
      `delete from drives where purge_at is not null and purge_at <= now() returning id`,
    );
    const purged = artifacts.filter((a) => drives.some((d) => d.id === a.drive_id));
    await w.noteArtifactChanges(
      purged.map((a): ArtifactChange => ({
        driveId: a.drive_id,
        artId: a.id,
        action: EventAction.artifactPurged,
        eventId: null,
        metadata: { drive_purged: true },
      })),
    );
    return drives.length;
  });
}

export async function purgeExpired(
  ctx: AppContext,
  opts: { blobGraceS?: number } = {},
): Promise<Record<string, number>> {
  const artifacts = await purgeArtifacts(ctx);
  const folders = await purgeFolders(ctx);
  const drives = await purgeDrives(ctx);
  const blobs = await purgeUnreferencedBlobs(ctx, opts.blobGraceS ?? ctx.config.durations.blobGcGraceS);
  return { artifacts, folders, drives, blobs };
}
