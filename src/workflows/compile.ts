import {
  ActivityFailure,
  CancellationScope,
  CancelledFailure,
  isCancellation,
  proxyActivities,
  sleep,
} from '@temporalio/workflow';
import type { CompileActivities } from '../activities/compile.js';
import type { CompileWorkflowInput, CompileWorkflowResult } from '../temporal/compile-messages.js';

/**
 * One compile job (workflow id `compile-<job_id>`). The compile activity runs on the compile task
 * queue, heartbeats every second and records the job's end itself; a worker lost mid-compile
 * misses heartbeats, so the attempt is retried on another (or the restarted) worker, from a fresh
 * scratch directory. Cancelling the workflow cancels the activity, which kills the engine's
 * process group and records `cancelled`; the workflow then makes sure that end is recorded and
 * reports itself cancelled (so the Temporal UI shows it). Retries exhausted end the job `failed`.
 * Before it asks a slot, the job is admitted into one of its drive's running places
 * (src/projects/admission.ts), waiting on a durable timer while its drive's places are taken.
 */
const { endCompile, admitCompile } = proxyActivities<CompileActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

export async function compileWorkflow(input: CompileWorkflowInput): Promise<CompileWorkflowResult> {
  const { runCompile } = proxyActivities<CompileActivities>({
    taskQueue: input.compileTaskQueue,
    // Copying the files and writing the PDF back take time beyond the engine's own limit.
    startToCloseTimeout: `${input.timeoutS + 300} seconds`,
    heartbeatTimeout: `${input.heartbeatTimeoutS} seconds`,
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 3 },
    cancellationType: 'WAIT_CANCELLATION_COMPLETED',
  });
  try {
    // Fair scheduling: wait (holding no compile slot) until the drive has a running place free.
    while ((await admitCompile({ jobId: input.jobId })) === 'wait') await sleep('2 seconds');
    const { status } = await runCompile({ jobId: input.jobId, timeoutS: input.timeoutS });
    // The activity may see the cancel (the job row) before Temporal delivers it: end as cancelled either way.
    if (status === 'cancelled') throw new CancelledFailure('compile job cancelled');
    return { jobId: input.jobId, status };
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => endCompile({ jobId: input.jobId, status: 'cancelled' }));
      throw err;
    }
    const cause = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
    const { status } = await endCompile({
      jobId: input.jobId,
      status: 'failed',
      error: `the compile could not complete: ${cause}`,
    });
    return { jobId: input.jobId, status };
  }
}
