import { AppError } from '../lib/errors.js';
import { hasPrefix } from '../lib/ids.js';
import { listArtifacts } from '../files/artifact-listing.js';
import { createFolder, readFolder } from '../files/folders.js';
import type { RequestContext } from '../platform/request-context.js';
import { enqueueCompile, waitForJob, type EnqueueInput, type JobRow } from './jobs.js';

/** The project folder: its fld_ id (REST's path parameter), or a fld_ id or folder path as an agent gives it. */
export type ProjectFolder = { fldId: string } | { ref: string };

/**
 * Compile on request (POST /v0/projects/{fld_id}/jobs, MCP compile): enqueues the job and, with `wait`, answers when it
 * ends (or when the wait runs out).
 */
export async function compileAndWait(
  rc: RequestContext,
  folder: ProjectFolder,
  input: Pick<EnqueueInput, 'task' | 'entrypoint' | 'engine'> & { wait: boolean },
): Promise<JobRow> {
  const fldId = 'fldId' in folder ? folder.fldId : await projectFolderOf(rc, folder.ref);
  const job = await enqueueCompile(rc, fldId, { task: input.task, entrypoint: input.entrypoint, engine: input.engine });
  return input.wait ? waitForJob(rc, job.id) : job;
}

/**
 * The folder an agent names by fld_ id or path. Folders are implied by paths (uploading paper/main.tex needs no
 * mkdir): a path with live artifacts under it and no folder row yet gets its folder now, as mkdir would make it.
 */
async function projectFolderOf(rc: RequestContext, ref: string): Promise<string> {
  if (hasPrefix(ref, 'fld')) return (await readFolder(rc, { id: ref })).id;
  try {
    return (await readFolder(rc, { path: ref })).id;
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'NOT_FOUND') throw err;
    const prefix = `${ref.replace(/^\/+|\/+$/g, '')}/`;
    const under = await listArtifacts(rc, { prefix, labels: [], limit: 1 });
    if (!under.items.length) throw new AppError('NOT_FOUND', `no live folder or artifacts under ${prefix}`);
    return (await createFolder(rc, { path: prefix })).id;
  }
}
