import type { AppContext } from '../platform/context.js';
import { artifactNotFound, type ArtifactRow } from '../records/artifact-records.js';
import { checkPath } from '../files/artifact-rules.js';
import { one, rows } from '../db/sql.js';
import type { Redemption } from './shares.js';

/**
 * What a redeemed folder share link reaches (the viewer's `/s/{share_key}/…`): the live artifacts
 * under the shared folder, except below a subfolder with `inherit_grants: false` (which takes
 * nothing from above, as for grants). An artifact share reaches only its artifact.
 */
const hiddenBelow = async (app: AppContext, r: Redemption) =>
  (
    await rows<{ path: string }>(
      app.orm.em.fork(),
      `select path from folders where drive_id = ? and deleted_at is null and not inherit_grants and starts_with(path, ?)`,
      [r.driveId, `${r.folder!.path}/`],
    )
  ).map((f) => `${f.path}/`);

export async function listSharedFolder(app: AppContext, r: Redemption, limit = 500): Promise<ArtifactRow[]> {
  if (!r.folder) return [];
  const hidden = await hiddenBelow(app, r);
  const found = await rows<ArtifactRow>(
    app.orm.em.fork(),
    `select * from artifacts where drive_id = ? and deleted_at is null and starts_with(path, ?) order by path collate "C" limit ?`,
    [r.driveId, `${r.folder.path}/`, limit],
  );
  return found.filter((a) => !hidden.some((h) => a.path.startsWith(h)));
}

/** The artifact at `relPath` below a redeemed folder share, or the same 404 as an absent path. */
export async function sharedArtifactAt(app: AppContext, r: Redemption, relPath: string): Promise<ArtifactRow> {
  if (!r.folder) throw artifactNotFound();
  const path = checkPath(`${r.folder.path}/${relPath}`);
  const hidden = await hiddenBelow(app, r);
  if (hidden.some((h) => path.startsWith(h))) throw artifactNotFound();
  const a = await one<ArtifactRow>(
    app.orm.em.fork(),
    `select * from artifacts where drive_id = ? and path = ? and deleted_at is null`,
    [r.driveId, path],
  );
  if (!a) throw artifactNotFound();
  return a;
}
