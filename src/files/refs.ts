import { AppError } from '../lib/errors.js';
import { hasPrefix } from '../lib/ids.js';
import type { RequestContext } from '../platform/request-context.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import { getArtifact, getArtifactByPath } from './artifacts.js';
import { listArtifacts } from './artifact-listing.js';
import { canonicalFolderPath, createFolder, readFolder, type FolderRef, type FolderRow } from './folders.js';
import { listVersions } from './versions.js';
import { leasesCovering } from './leases/leases.js';
import type { LeaseRow } from './leases/lease-guard.js';

/**
 * References as agents give them (the MCP tools' `ref`): an art_ id, a fld_ id or a path, which may name an
 * artifact or a folder.
 */

export type Resolved = { kind: 'artifact'; artifact: ArtifactRow } | { kind: 'folder'; folder: FolderRow };

/** The artifact an art_ id or a path names. */
export async function artifactByRef(rc: RequestContext, ref: string): Promise<ArtifactRow> {
  return hasPrefix(ref, 'art') ? getArtifact(rc, ref) : getArtifactByPath(rc, ref);
}

/**
 * Which kind a ref names: an artifact by art_ id or path, else a folder by fld_ id or folder path. With `implied`
 * (the writes), a folder path that only the paths of live artifacts imply gets its folder row now (folderImpliedAt).
 */
export async function resolveRef(rc: RequestContext, ref: string, opts: { implied?: boolean } = {}): Promise<Resolved> {
  if (hasPrefix(ref, 'art')) return { kind: 'artifact', artifact: await getArtifact(rc, ref) };
  if (hasPrefix(ref, 'fld')) return { kind: 'folder', folder: await readFolder(rc, { id: ref }) };
  const path = ref.replace(/^\/+/, '');
  try {
    if (!path.endsWith('/')) return { kind: 'artifact', artifact: await getArtifactByPath(rc, path) };
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'ARTIFACT_NOT_FOUND') throw err;
  }
  try {
    return { kind: 'folder', folder: opts.implied ? await folderImpliedAt(rc, path) : await readFolder(rc, { path }) };
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') throw refNotFound(ref);
    throw err;
  }
}

/**
 * The live folder at a path. Folders are implied by paths (uploading paper/main.tex needs no mkdir): when no folder
 * row exists but live artifacts sit under the path, the folder is made now, as mkdir would make it.
 */
export async function folderImpliedAt(rc: RequestContext, path: string): Promise<FolderRow> {
  try {
    return await readFolder(rc, { path });
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'NOT_FOUND') throw err;
    const prefix = `${path.replace(/^\/+|\/+$/g, '')}/`;
    const under = await listArtifacts(rc, { prefix, labels: [], limit: 1 });
    if (!under.items.length) throw new AppError('NOT_FOUND', `no live folder or artifacts under ${prefix}`);
    return createFolder(rc, { path: prefix });
  }
}

/**
 * A read-only lookup (MCP `lookup`): as resolveRef, and a folder only paths imply is answered as such (`implied`, with
 * no record: a read makes none; a share, grant or compile on it makes the record then).
 */
export async function lookupRef(
  rc: RequestContext,
  ref: string,
): Promise<(Resolved | { kind: 'implied'; path: string; artifacts: boolean }) & { leases: LeaseRow[] }> {
  let found: Resolved | { kind: 'implied'; path: string; artifacts: boolean };
  try {
    found = await resolveRef(rc, ref);
  } catch (err) {
    if (!(err instanceof AppError) || hasPrefix(ref, 'fld') || hasPrefix(ref, 'art')) throw err;
    const prefix = `${ref.replace(/^\/+|\/+$/g, '')}/`;
    if (prefix === '/' || !(await listArtifacts(rc, { prefix, labels: [], limit: 1 })).items.length) throw err;
    found = { kind: 'implied', path: prefix, artifacts: true };
  }
  // The live leases on it (issue 56), so an agent sees who holds a path before it writes.
  const [driveId, path] =
    found.kind === 'artifact'
      ? [found.artifact.drive_id, found.artifact.path]
      : found.kind === 'folder'
        ? [found.folder.drive_id, found.folder.path]
        : [rc.driveId, found.path];
  return { ...found, leases: await leasesCovering(rc.app.orm.em.fork(), driveId, path) };
}

/**
 * GET /v0/folders/{path} (and /meta): the folder record, or the folder only the paths of live artifacts imply
 * (`implied`, the canonical path without slashes). A read makes no record, as MCP `lookup`; an id names a record only.
 */
export async function folderOrImplied(
  rc: RequestContext,
  ref: FolderRef,
): Promise<{ folder: FolderRow } | { implied: string; driveId: string }> {
  try {
    return { folder: await readFolder(rc, ref) };
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'NOT_FOUND' || 'id' in ref) throw err;
    const path = canonicalFolderPath(ref.path);
    if (!(await listArtifacts(rc, { prefix: `${path}/`, labels: [], limit: 1 })).items.length) throw err;
    return { implied: path, driveId: rc.driveId };
  }
}

/**
 * Nothing lives at a path: one code per kind of thing, as REST answers it. A path ending in "/" names a folder (the
 * folders' NOT_FOUND); any other path is an artifact's (ARTIFACT_NOT_FOUND), even when a folder was tried too.
 */
export function refNotFound(ref: string): AppError {
  return ref.endsWith('/')
    ? new AppError('NOT_FOUND', `no live folder at ${ref}`)
    : new AppError('ARTIFACT_NOT_FOUND', `no live artifact or folder at ${ref}`);
}

/** The versions of the artifact a ref names, newest first, with the artifact itself. */
export async function versionsByRef(rc: RequestContext, ref: string, page: { cursor?: string; limit: number }) {
  const artifact = await artifactByRef(rc, ref);
  return { artifact, page: await listVersions(rc, artifact.id, page) };
}
