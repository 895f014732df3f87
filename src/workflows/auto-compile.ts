import { condition, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { AutoCompileActivities } from '../activities/compile.js';
import { projectChangedSignal, type AutoCompileInput, type AutoCompileResult } from '../temporal/compile-messages.js';

/**
 * The auto-compile debouncer of one project (workflow id `autocompile-<fld_id>`), started or
 * signalled with signal-with-start by every write under the folder. It waits until no write has
 * arrived for `debounceMs`, enqueues one compile job, and ends once a further quiet period passes
 * with no write (writes during that period start the next round). A burst gives one job.
 */
const { enqueueAutoCompile } = proxyActivities<AutoCompileActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
});

export async function autoCompileWorkflow(input: AutoCompileInput): Promise<AutoCompileResult> {
  let changes = 0;
  setHandler(projectChangedSignal, () => {
    changes++;
  });
  const jobsEnqueued: string[] = [];
  for (let round = 0; round < 100; round++) {
    // Signals delivered with the start are applied before this check.
    if (changes === 0 && !(await condition(() => changes > 0, input.debounceMs))) break;
    // Debounce: restart the quiet period at every new write.
    for (;;) {
      const seen = changes;
      if (!(await condition(() => changes !== seen, input.debounceMs))) break;
    }
    changes = 0;
    const { workflowId, runId } = workflowInfo();
    const jobId = await enqueueAutoCompile({
      driveId: input.driveId,
      fldId: input.fldId,
      requestKey: `${workflowId}/${runId}/${round}`,
    });
    if (jobId) jobsEnqueued.push(jobId);
  }
  return { jobsEnqueued };
}
