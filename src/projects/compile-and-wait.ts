import { hasPrefix } from '../lib/ids.js';
import { readFolder } from '../files/folders.js';
import { folderImpliedAt } from '../files/refs.js';
import type { RequestContext } from '../platform/request-context.js';
import { enqueueCompile, jobRecord, waitForJob, type EnqueueInput, type JobRecord } from './jobs.js';

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
): Promise<JobRecord> {
  const fldId = 'fldId' in folder ? folder.fldId : await projectFolderOf(rc, folder.ref);
  const job = await enqueueCompile(rc, fldId, { task: input.task, entrypoint: input.entrypoint, engine: input.engine });
  return input.wait ? waitForJob(rc, job.id) : jobRecord(rc.app, job);
}

/** The folder an agent names: a fld_ id, or a path (a folder implied by the paths under it is made now). */
async function projectFolderOf(rc: RequestContext, ref: string): Promise<string> {
  return (hasPrefix(ref, 'fld') ? await readFolder(rc, { id: ref }) : await folderImpliedAt(rc, ref)).id;
}
