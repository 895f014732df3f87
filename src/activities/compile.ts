import { Context } from '@temporalio/activity';
import type { AppContext } from '../platform/context.js';
import { admitJob, type Admission } from '../projects/admission.js';
import { enqueueAutoCompile } from '../projects/auto-compile.js';
import { runCompileAttempt } from '../projects/compile-attempt.js';
import { finishJob } from '../projects/jobs.js';
import type { CompileStatus } from '../temporal/compile-messages.js';

export interface CompileActivities {
  /** Runs on the compile task queue (at most COMPILE_CONCURRENCY at once per worker). */
  runCompile(input: { jobId: string; timeoutS: number }): Promise<{ status: CompileStatus }>;
  /** Takes one of the job's drive's running places (fair scheduling), or says to wait; on the workflow's own queue. */
  admitCompile(input: { jobId: string }): Promise<Admission>;
  /**
   * Records an end the compile itself could not (cancelled before it ran, retries exhausted); a no-op on an ended job.
   */
  endCompile(input: {
    jobId: string;
    status: 'cancelled' | 'failed';
    error?: string;
  }): Promise<{ status: CompileStatus }>;
}

export interface AutoCompileActivities {
  /** `requestKey` names the debouncer's round, so a retried activity returns the job it already enqueued. */
  enqueueAutoCompile(input: { driveId: string; fldId: string; requestKey: string }): Promise<string | null>;
}

export function createCompileActivities(ctx: AppContext): CompileActivities & AutoCompileActivities {
  return {
    async runCompile({ jobId, timeoutS }) {
      const a = Context.current();
      const job = await runCompileAttempt(ctx, jobId, {
        attempt: a.info.attempt,
        timeoutS,
        signal: a.cancellationSignal,
        heartbeat: (d) => a.heartbeat(d),
      });
      return { status: job.status };
    },
    async admitCompile({ jobId }) {
      return admitJob(ctx, jobId);
    },
    async endCompile({ jobId, status, error }) {
      const job = await finishJob(ctx, jobId, { status, error: error ?? null });
      return { status: job!.status };
    },
    async enqueueAutoCompile({ driveId, fldId, requestKey }) {
      return (await enqueueAutoCompile(ctx, driveId, fldId, requestKey))?.id ?? null;
    },
  };
}
