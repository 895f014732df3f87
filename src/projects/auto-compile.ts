import type { AppContext } from '../platform/context.js';
import type { OutboxHandler } from '../outbox/outbox.js';
import { systemRequestContext } from '../platform/request-context.js';
import { signalProjectChanged } from '../temporal/start.js';
import { enqueueCompile, type JobRow } from './jobs.js';
import { autoCompileProjectsFor, findProjectRow, outputPathOf } from './projects.js';

/**
 * auto_compile through the outbox (topic `compile`): an artifact change under a project folder with
 * `auto_compile` queues a request in the write's own transaction (only on drives that have such a
 * project), and the worker's handler turns it into a signal-with-start of that project's debouncer
 * workflow (`autocompile-<fld_id>`), which enqueues one job once the writes have been quiet for
 * COMPILE_DEBOUNCE_MS. So a crash after commit loses nothing, and no write waits for Temporal.
 * The project's own output (the PDF a compile writes) is not a change that compiles again.
 */
export async function signalProjectsAt(app: AppContext, driveId: string, paths: string[]): Promise<void> {
  const seen = new Set<string>();
  for (const p of paths) {
    for (const project of await autoCompileProjectsFor(app.orm.em.fork(), driveId, p)) {
      if (seen.has(project.fld_id) || p === outputPathOf(project.path, project.entrypoint)) continue;
      seen.add(project.fld_id);
      await app.temporal.withDeadline(Date.now() + 5000, () =>
        signalProjectChanged(
          { temporal: app.temporal, taskQueue: app.config.temporal.taskQueue },
          { driveId, fldId: project.fld_id, debounceMs: app.config.compile.debounceMs },
          p,
        ),
      );
    }
  }
}

/** The outbox handler of topic `compile` (registered by the worker); a failed signal is retried after a backoff. */
export function createAutoCompileHandler(app: AppContext): OutboxHandler {
  return {
    topic: 'compile',
    async handle(batch) {
      const failures = new Map<string, Error>();
      for (const req of batch) {
        try {
          await signalProjectsAt(app, req.driveId, req.paths);
        } catch (err) {
          failures.set(req.artId, err as Error);
        }
      }
      return failures;
    },
  };
}

/** The debouncer's activity: enqueues the job if the project still wants auto-compiles. */
export async function enqueueAutoCompile(
  app: AppContext,
  driveId: string,
  fldId: string,
  requestKey: string,
): Promise<JobRow | null> {
  const project = await findProjectRow(app.orm.em.fork(), driveId, fldId);
  if (!project?.auto_compile) return null;
  try {
    return await enqueueCompile(systemRequestContext(app, driveId, 'auto_compile'), fldId, {
      trigger: 'auto_compile',
      task: 'compile',
      requestKey,
    });
  } catch (err) {
    // A folder deleted meanwhile or a config that no longer resolves: nothing to compile.
    if ((err as { status?: number }).status === 404 || (err as { status?: number }).status === 400) return null;
    throw err;
  }
}
