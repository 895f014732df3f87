import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { OutboxActivities } from '../activities/outbox.js';
import type { DrainerWorkflowInput } from '../temporal/outbox-messages.js';

/** Drain runs per execution before continue-as-new (about six events each). */
const MAX_RUNS = 100;

/**
 * One outbox drainer (id `outbox-<topic>-<shard>`): runs the drain activity over and over. The
 * activity heartbeats, so a dead worker's run is retried on another within seconds, and it holds the
 * shard's advisory lock, so a stalled one and its retry never drain at once.
 */
export async function outboxDrainerWorkflow(input: DrainerWorkflowInput): Promise<never> {
  const { drainOutbox } = proxyActivities<OutboxActivities>({
    // A run returns after runForMs, but finishes the batch in hand first (a large text splits for minutes).
    startToCloseTimeout: input.runForMs + 30 * 60_000,
    heartbeatTimeout: '10 seconds',
    // No attempt limit: a dependency outage is waited out, at most 10 s behind its end.
    retry: { initialInterval: '1 second', maximumInterval: '10 seconds' },
  });
  const { runs: _runs, ...drain } = input;
  let runs = input.runs ?? 0;
  while (runs < MAX_RUNS && !workflowInfo().continueAsNewSuggested) {
    await drainOutbox(drain);
    runs++;
  }
  return continueAsNew<typeof outboxDrainerWorkflow>({ ...drain, runs: 0 });
}
