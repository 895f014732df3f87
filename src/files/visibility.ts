import type { ArtifactRow } from '../records/artifact-records.js';
import type { Visibility } from './artifact-rules.js';
import { EventAction } from './events.js';
import { type WriteTx } from './write-transaction.js';
import { one, rows } from '../db/sql.js';
import { insertGrant, type GrantRow } from '../access/grant-records.js';

/**
 * Visibility (X-Drive-Visibility) is not a second authorization mechanism: `public` is an
 * `anyone:viewer` grant on the artifact, `private` is the absence of any anyone grant. The
 * `visibility` column is kept equal to "has an unrevoked anyone grant without expiry" in the same
 * transaction as every grant change, so the artifact record reads it without a join.
 */
export async function applyVisibility(
  w: WriteTx,
  row: ArtifactRow,
  visibility: Visibility | undefined,
  actor: string | null,
): Promise<ArtifactRow> {
  if (visibility === undefined) return row;
  if (visibility === 'public') {
    const existing = await one<GrantRow>(
      w.tx,
      `select * from grants where art_id = ? and principal_key = 'anyone' and revoked_at is null for update`,
      [row.id],
    );
    if (existing && existing.expires_at !== null) {
      await rows(w.tx, `update grants set expires_at = null, updated_at = clock_timestamp() where id = ?`, [
        existing.id,
      ]);
      await w.event({
        driveId: row.drive_id,
        artId: row.id,
        action: EventAction.grantUpdated,
        actor,
        metadata: { grn_id: existing.id, expires_at: null, cause: 'visibility' },
      });
    } else if (!existing) {
      const g = await insertGrant(w.tx, {
        driveId: row.drive_id,
        artId: row.id,
        fldId: null,
        principal: { type: 'anyone' },
        role: 'viewer',
        grantedBy: { type: 'drive', id: row.drive_id, onBehalfOf: null },
        expiresInS: null,
      });
      if (g)
        await w.event({
          driveId: row.drive_id,
          artId: row.id,
          action: EventAction.grantCreated,
          actor,
          metadata: { grn_id: g.id, principal_type: 'anyone', role: 'viewer', cause: 'visibility' },
        });
    }
  } else {
    const revoked = await rows<{ id: string }>(
      w.tx,
      `update grants set revoked_at = clock_timestamp(), updated_at = clock_timestamp() where art_id = ? and principal_type = 'anyone' and revoked_at is null returning id`,
      [row.id],
    );
    for (const g of revoked) {
      await w.event({
        driveId: row.drive_id,
        artId: row.id,
        action: EventAction.grantRevoked,
        actor,
        metadata: { grn_id: g.id, principal_type: 'anyone', cause: 'visibility' },
      });
    }
  }
  return syncVisibility(w, row.id);
}

/** Sets the artifact's visibility column from its anyone grants (after any grant change on it). */
export async function syncVisibility(w: WriteTx, artId: string): Promise<ArtifactRow> {
  return (await one<ArtifactRow>(
    w.tx,
    `update artifacts set visibility = case when exists (
        select 1 from grants where art_id = ? and principal_type = 'anyone' and revoked_at is null and expires_at is null) then 'public' else 'private' end
      where id = ? returning *`,
    [artId, artId],
  ))!;
}
