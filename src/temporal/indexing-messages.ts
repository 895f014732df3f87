import { defineSignal } from '@temporalio/workflow';

/**
 * Id, input and messages of the per-artifact indexing workflow (src/workflows/indexing.ts), one per
 * artifact (id `index-<art_id>`), started or signalled with signal-with-start.
 */
export interface IndexTarget {
  driveId: string;
  artId: string;
}

export type IndexOp = 'content' | 'record' | 'remove';

export interface IndexRequestSignal {
  op: IndexOp;
  /** The version the writer just committed (content requests); informational, the pass reads the newest. */
  versionNumber?: number;
}

export interface PendingIndexState {
  content: boolean;
  record: boolean;
  remove: boolean;
  latestVersion: number;
}

export interface RetryTuning {
  initialIntervalMs: number;
  maximumIntervalMs: number;
}

export interface IndexingWorkflowInput extends IndexTarget {
  pending?: PendingIndexState;
  passes?: number;
  /** Retry pacing of the embeddings step (tests shorten it); defaults 1 s doubling to 60 s. */
  embedRetry?: RetryTuning;
}

export interface IndexingWorkflowResult {
  passes: number;
  lastIndexedVersion: number | null;
  removed: boolean;
}

export const indexRequestSignal = defineSignal<[IndexRequestSignal]>('indexRequest');

export function indexingWorkflowId(artId: string): string {
  return `index-${artId}`;
}
