import { retentionDays, type Config } from '../lib/config.js';
import type { FolderRow } from '../files/folders.js';
import { iso } from '../lib/time.js';

/** The public folder shapes (spec 2.6; REFERENCE FolderOut and FolderDeleteOut). Paths carry both slashes. */
export function folderOut(r: FolderRow) {
  return {
    fld_id: r.id,
    id: r.id,
    drive_id: r.drive_id,
    path: `/${r.path}/`,
    description: r.description,
    inherit_grants: r.inherit_grants,
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
    deleted_at: iso(r.deleted_at),
    purge_at: iso(r.purge_at),
  };
}
export type FolderOut = ReturnType<typeof folderOut>;

/** GET /v0/folders/{path}: a record (`implied: false`) or a folder only paths imply (no record: ids, times null). */
export function folderReadOut(r: { folder: FolderRow } | { implied: string; driveId: string }) {
  if ('folder' in r) return { ...folderOut(r.folder), implied: false };
  return {
    fld_id: null,
    id: null,
    drive_id: r.driveId,
    path: `/${r.implied}/`,
    description: null,
    inherit_grants: true,
    created_at: null,
    updated_at: null,
    deleted_at: null,
    purge_at: null,
    implied: true,
  };
}

export function folderDeleteOut(
  config: Config,
  r: { folder: FolderRow; nSubfoldersDeleted: number; nArtifactsDeleted: number },
) {
  return {
    ok: true as const,
    fld_id: r.folder.id,
    id: r.folder.id,
    path: `/${r.folder.path}/`,
    deleted_at: iso(r.folder.deleted_at)!,
    purge_at: iso(r.folder.purge_at)!,
    retention_days: retentionDays(config),
    n_subfolders_deleted: r.nSubfoldersDeleted,
    n_artifacts_deleted: r.nArtifactsDeleted,
  };
}
