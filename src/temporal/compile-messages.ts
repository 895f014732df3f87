import { defineSignal } from '@temporalio/workflow';

/**
 * Ids, inputs and messages of the compile workflows: one workflow per job (`compile-<job_id>`,
 * src/workflows/compile.ts) and one debouncer per auto-compile project (`autocompile-<fld_id>`,
 * src/workflows/auto-compile.ts), started or signalled with signal-with-start.
 */
export interface CompileWorkflowInput {
  jobId: string;
  driveId: string;
  /** The project folder (its ProjectId search attribute; absent in workflows started before it was added). */
  fldId?: string;
  /** Task queue of the compile activity: a worker there runs at most COMPILE_CONCURRENCY at once. */
  compileTaskQueue: string;
  /** Wall-clock limit of the engine (the activity's own limit adds a margin). */
  timeoutS: number;
  heartbeatTimeoutS: number;
}

export type CompileStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'timed_out';

export interface CompileWorkflowResult {
  jobId: string;
  status: CompileStatus;
}

export interface AutoCompileInput {
  driveId: string;
  fldId: string;
  /** Quiet time after the last write before a job is enqueued. */
  debounceMs: number;
}

export interface AutoCompileResult {
  jobsEnqueued: string[];
}

/** A write under the project folder (the path is informational). */
export const projectChangedSignal = defineSignal<[{ path: string }]>('projectChanged');

export const compileWorkflowId = (jobId: string) => `compile-${jobId}`;
export const autoCompileWorkflowId = (fldId: string) => `autocompile-${fldId}`;
