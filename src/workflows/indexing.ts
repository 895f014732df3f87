import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { IndexingActivities } from '../activities/indexing.js';
import {
  indexRequestSignal,
  type IndexingWorkflowInput,
  type IndexingWorkflowResult,
  type IndexRequestSignal,
  type IndexTarget,
  type PendingIndexState,
} from '../temporal/indexing-messages.js';

/**
 * One workflow per artifact (id `index-<art_id>`), started or signalled with signal-with-start.
 * Requests that arrive while a pass runs are folded into one pending state, so a burst of
 * overwrites is indexed once, at the newest version, and nothing stale is written last.
 * A delete waits for the running pass and then removes, so the final state is always right.
 */
export function applyRequest(state: PendingIndexState, req: IndexRequestSignal): void {
  if (req.op === 'remove') {
    Object.assign(state, { content: false, record: false, remove: true });
  } else if (req.op === 'content') {
    state.content = true;
    state.remove = false;
    state.latestVersion = Math.max(state.latestVersion, req.versionNumber ?? 0);
  } else {
    state.record = true;
  }
}

const isPending = (s: PendingIndexState) => s.content || s.record || s.remove;

export async function indexingWorkflow(input: IndexingWorkflowInput): Promise<IndexingWorkflowResult> {
  const state: PendingIndexState = input.pending ?? { content: false, record: false, remove: false, latestVersion: 0 };
  setHandler(indexRequestSignal, (req) => applyRequest(state, req));

  const steps = proxyActivities<IndexingActivities>({
    // Splitting is CPU-bound at roughly 5–10 s per MB of text (token counting), so a 50 MB text
    // file needs minutes; the bound only has to catch a lost worker.
    startToCloseTimeout: '15 minutes',
    // Activities heartbeat every 2 s (activities/heartbeat.ts): a dead worker's step is retried within 10 s.
    heartbeatTimeout: '10 seconds',
    // At most 10 s between attempts, so a dependency outage delays indexing by seconds after it ends.
    retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 40 },
  });
  const embedRetry = input.embedRetry ?? { initialIntervalMs: 1000, maximumIntervalMs: 60_000 };
  const { indexEmbed } = proxyActivities<IndexingActivities>({
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '60 seconds',
    // A provider outage is waited out for up to a day; each retry resumes at the first unembedded passage.
    scheduleToCloseTimeout: '24 hours',
    retry: { initialInterval: embedRetry.initialIntervalMs, maximumInterval: embedRetry.maximumIntervalMs, backoffCoefficient: 2 },
  });

  const target: IndexTarget = { driveId: input.driveId, artId: input.artId };
  let passes = input.passes ?? 0;
  let lastIndexedVersion: number | null = null;
  let removed = false;

  // Signals delivered with the start are applied before this first check.
  await condition(() => isPending(state), '1 second');
  while (isPending(state)) {
    const todo = { ...state };
    Object.assign(state, { content: false, record: false, remove: false });
    passes++;
    if (todo.remove) {
      await steps.indexRemove(target);
      removed = true;
    } else if (todo.content) {
      const extracted = await steps.indexExtract(target);
      if (!extracted) {
        await steps.indexRemove(target);
        removed = true;
      } else {
        await steps.indexWriteDocument(target);
        await steps.indexSplit(target);
        if (extracted.embed) await indexEmbed(target);
        lastIndexedVersion = (await steps.indexWritePassages(target)).versionNumber;
        removed = false;
      }
    } else if (todo.record) {
      removed = !(await steps.indexRefreshRecord(target));
    }
    if (isPending(state) && workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof indexingWorkflow>({ ...input, pending: state, passes });
    }
  }
  return { passes, lastIndexedVersion, removed };
}
