import type { RequestContext } from '../platform/request-context.js';
import { copyArtifact, renameArtifact } from './artifacts.js';
import { deleteFolder, moveFolder } from './folders.js';
import { hasPrefix } from '../lib/ids.js';
import { checkNotWiki, checkSource } from './artifact-rules.js';
import { artifactByRef, resolveRef } from './refs.js';
import { deleteArtifact, restoreArtifact, trashedAt } from './trash.js';
import { restoreVersion } from './version-restore.js';

/** Move, copy and delete by a ref as agents give it (art_/fld_ id or path): the artifact or the folder it names. */

/** Moves (renames) the artifact or the folder a ref names; `from` is the record before the move. */
export async function moveByRef(rc: RequestContext, input: { ref: string; path: string; ifMatch?: number }) {
  reservedPath(input.ref);
  const found = await resolveRef(rc, input.ref, { implied: true });
  if (found.kind === 'artifact') {
    const artifact = await renameArtifact(rc, { artId: found.artifact.id, path: input.path, ifMatch: input.ifMatch });
    return { kind: 'artifact' as const, from: found.artifact, artifact };
  }
  const folder = await moveFolder(rc, { ref: { id: found.folder.id }, path: input.path });
  return { kind: 'folder' as const, from: found.folder, folder };
}

/** A path under _wiki/ is reserved whether or not a page lives there (403 WIKI_RESERVED, as REST answers). */
const reservedPath = (ref: string) => {
  if (!hasPrefix(ref, 'art') && !hasPrefix(ref, 'fld')) checkNotWiki(ref.replace(/^\/+/, ''));
};

/** Soft-deletes the artifact or the folder (with `recursive`, everything under it) a ref names. */
export async function deleteByRef(rc: RequestContext, input: { ref: string; recursive: boolean; ifMatch?: number }) {
  reservedPath(input.ref);
  const found = await resolveRef(rc, input.ref, { implied: true });
  if (found.kind === 'artifact')
    return {
      kind: 'artifact' as const,
      artifact: await deleteArtifact(rc, { artId: found.artifact.id, ifMatch: input.ifMatch }),
    };
  return {
    kind: 'folder' as const,
    folder: await deleteFolder(rc, { ref: { id: found.folder.id }, recursive: input.recursive }),
  };
}

/** Copies the artifact a ref names to a new path; `source` (checked here) replaces the default back-reference. */
export async function copyByRef(rc: RequestContext, input: { ref: string; path: string; source?: unknown }) {
  const from = await artifactByRef(rc, input.ref);
  const copy = await copyArtifact(rc, {
    artId: from.id,
    path: input.path,
    source: input.source !== undefined ? checkSource(input.source) : null,
  });
  return { from, copy };
}

/**
 * Restores a trashed artifact named by its art_ id or by the path it had (the one deleted last there); with `version`,
 * the live artifact the ref names gets a new current version holding that version (src/files/version-restore.ts).
 */
export async function restoreByRef(
  rc: RequestContext,
  input: { ref: string; rename?: string; overwrite: boolean; version?: number; ifMatch?: number },
) {
  if (input.version !== undefined) {
    const live = await artifactByRef(rc, input.ref);
    return restoreVersion(rc, { artId: live.id, versionNumber: input.version, ifMatch: input.ifMatch });
  }
  const artId = hasPrefix(input.ref, 'art') ? input.ref : await trashedAt(rc, input.ref);
  return restoreArtifact(rc, { artId, rename: input.rename, overwrite: input.overwrite });
}
