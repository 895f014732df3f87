import type { AppContext } from '../context.js';
import { onArtifactChanged, type ArtifactChange } from '../drive/artifact-hooks.js';
import { EventAction } from '../drive/events.js';
import { systemRequestContext } from '../request-context.js';
import { signalProjectChanged } from '../temporal/start.js';
import { enqueueCompile, type JobRow } from './jobs.js';
import { autoCompileProjectsFor, findProjectRow, outputPathOf } from './projects.js';

/**
 * auto_compile: every artifact change under a project folder with `auto_compile` becomes a
 * signal-with-start of that project's debouncer workflow (`autocompile-<fld_id>`), which enqueues
 * one job once the writes have been quiet for COMPILE_DEBOUNCE_MS. The project's own output (the
 * PDF a compile writes) is not a change that compiles again.
 */
const CONTENT_ACTIONS: ReadonlySet<string> = new Set([
  EventAction.artifactCreated, EventAction.artifactUpdated, EventAction.artifactCopied, EventAction.artifactRenamed,
  EventAction.artifactDeleted, EventAction.artifactRestored,
]);

export async function projectChangeHook(app: AppContext, change: ArtifactChange): Promise<void> {
  if (!CONTENT_ACTIONS.has(change.action)) return;
  const paths = [change.metadata.path, change.metadata.from, change.metadata.to].filter((p): p is string => typeof p === 'string');
  const seen = new Set<string>();
  for (const p of new Set(paths)) {
    for (const project of await autoCompileProjectsFor(app.orm.em.fork(), change.driveId, p)) {
      if (seen.has(project.fld_id) || p === outputPathOf(project.path, project.entrypoint)) continue;
      seen.add(project.fld_id);
      await signalProjectChanged(
        { temporal: app.temporal, taskQueue: app.config.temporal.taskQueue },
        { driveId: change.driveId, fldId: project.fld_id, debounceMs: app.config.compile.debounceMs },
        p,
      );
    }
  }
}

let installed: (() => void) | undefined;

/** Subscribes the process (API or worker) once; installing again replaces the previous binding. */
export function bindAutoCompileToArtifacts(app: AppContext): () => void {
  installed?.();
  const off = onArtifactChanged((change) => projectChangeHook(app, change));
  installed = () => {
    off();
    installed = undefined;
  };
  return installed;
}

/** The debouncer's activity: enqueues the job if the project still wants auto-compiles. */
export async function enqueueAutoCompile(app: AppContext, driveId: string, fldId: string, requestKey: string): Promise<JobRow | null> {
  const project = await findProjectRow(app.orm.em.fork(), driveId, fldId);
  if (!project?.auto_compile) return null;
  try {
    return await enqueueCompile(systemRequestContext(app, driveId, 'auto_compile'), fldId, { trigger: 'auto_compile', task: 'compile', requestKey });
  } catch (err) {
    // A folder deleted meanwhile or a config that no longer resolves: nothing to compile.
    if ((err as { status?: number }).status === 404 || (err as { status?: number }).status === 400) return null;
    throw err;
  }
}
