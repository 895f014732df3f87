import { proxyActivities, sleep } from '@temporalio/workflow';
import type { SemanticGraphActivities } from '../activities/semantic-graph.js';
import type { SemanticGraphInput, SemanticGraphResult } from '../temporal/search-messages.js';

const { buildSemanticGraph } = proxyActivities<SemanticGraphActivities>({
  // A graph of 100,000 passages builds in tens of seconds; a million in minutes.
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', maximumAttempts: 3 },
});

/**
 * Builds one drive's semantic graph, started by the search indexer when the drive's graph is missing or stale. It
 * waits `delayMs` first: the indexer asks after every batch, and while this workflow runs those asks join it.
 */
export async function semanticGraphWorkflow(input: SemanticGraphInput): Promise<SemanticGraphResult> {
  if (input.delayMs > 0) await sleep(input.delayMs);
  return buildSemanticGraph({ driveId: input.driveId });
}
