import type { RequestContext } from '../platform/request-context.js';
import { checkSource } from './artifact-rules.js';
import { copyArtifact, renameArtifact } from './artifacts.js';
import { AppError } from '../lib/errors.js';
import { hasPrefix } from '../lib/ids.js';
import { listArtifacts } from './artifact-listing.js';
import { createFolder, deleteFolder, moveFolder } from './folders.js';
import { artifactByRef, resolveRef, type Resolved } from './refs.js';
import { deleteArtifact } from './trash.js';

/** Move, copy and delete by a ref as agents give it (art_/fld_ id or path): the artifact or the folder it names. */

/**
 * What a write names: an artifact or an explicit folder, else a folder implied by paths (live artifacts below
 * `ref/`), which becomes an explicit folder (idempotent `createFolder`) so that it moves and deletes as one.
 */
async function writableRef(rc: RequestContext, ref: string): Promise<Resolved> {
  try {
    return await resolveRef(rc, ref);
  } catch (err) {
    const path = ref.replace(/^\/+|\/+$/g, '');
    if (!(err instanceof AppError && err.code === 'NOT_FOUND') || hasPrefix(path, 'fld') || !path) throw err;
    const below = await listArtifacts(rc, { prefix: `${path}/`, labels: [], limit: 1 });
    if (!below.items.length) throw err;
    return { kind: 'folder', folder: await createFolder(rc, { path }) };
  }
}

/** Moves (renames) the artifact or the folder a ref names; `from` is the record before the move. */
export async function moveByRef(rc: RequestContext, input: { ref: string; path: string; ifMatch?: number }) {
  const found = await writableRef(rc, input.ref);
  if (found.kind === 'artifact') {
    const artifact = await renameArtifact(rc, { artId: found.artifact.id, path: input.path, ifMatch: input.ifMatch });
    return { kind: 'artifact' as const, from: found.artifact, artifact };
  }
  const folder = await moveFolder(rc, { ref: { id: found.folder.id }, path: input.path });
  return { kind: 'folder' as const, from: found.folder, folder };
}

/** Soft-deletes the artifact or the folder (with `recursive`, everything under it) a ref names. */
export async function deleteByRef(rc: RequestContext, input: { ref: string; recursive: boolean; ifMatch?: number }) {
  const found = await writableRef(rc, input.ref);
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
