import type { Client } from '@temporalio/client';
import {
  claimWorkflowId,
  decideClaimUpdate,
  unclaimedDriveWorkflowId,
  type ClaimCeremonyInput,
  type ClaimDecision,
  type ClaimOutcome,
  type UnclaimedDriveInput,
} from './identity-messages.js';
import { outboxDrainerWorkflowId, type DrainInput } from './outbox-messages.js';
import { uploadCommittedSignal, uploadWorkflowId, type UploadSessionInput } from './upload-messages.js';
import {
  autoCompileWorkflowId,
  compileWorkflowId,
  projectChangedSignal,
  type AutoCompileInput,
  type CompileWorkflowInput,
} from './compile-messages.js';
import { semanticGraphWorkflowId, type SemanticGraphInput } from './search-messages.js';
import { tagged } from './search-attributes.js';
import { WorkflowType } from './workflow-types.js';

/**
 * Every call that starts or signals a workflow, by workflow type name: the domain asks for an
 * operation ("start this upload's session"), this module knows the id scheme, the type and the
 * message. Deadlines and error mapping stay with the caller, which knows what a failure means. Every start carries
 * search attributes (DriveId, JobId, …) and a memo saying what the workflow is for (./search-attributes.ts).
 */
export interface Workflows {
  temporal: Client;
  taskQueue: string;
}

export async function startClaimCeremony(w: Workflows, input: ClaimCeremonyInput): Promise<void> {
  await w.temporal.workflow.start(WorkflowType.claimCeremony, {
    workflowId: claimWorkflowId(input.attemptId),
    taskQueue: w.taskQueue,
    args: [input],
    ...tagged({ purpose: 'claim ceremony: a human claims an agent drive', attributes: { DriveId: input.driveId } }),
  });
}

/** Sends the human's decision; resolves with the outcome the ceremony wrote. */
export function decideClaimCeremony(
  temporal: Client,
  attemptId: string,
  decision: ClaimDecision,
): Promise<ClaimOutcome> {
  return temporal.workflow.getHandle(claimWorkflowId(attemptId)).executeUpdate(decideClaimUpdate, { args: [decision] });
}

export async function startUnclaimedDrive(w: Workflows, input: UnclaimedDriveInput): Promise<void> {
  await w.temporal.workflow.start(WorkflowType.unclaimedDrive, {
    workflowId: unclaimedDriveWorkflowId(input.driveId),
    taskQueue: w.taskQueue,
    args: [input],
    ...tagged({
      purpose: 'unclaimed drive lifecycle: expiry while nobody claims it',
      attributes: { DriveId: input.driveId },
    }),
  });
}

export async function startUploadSession(w: Workflows, input: UploadSessionInput): Promise<void> {
  await w.temporal.workflow.start(WorkflowType.uploadSession, {
    workflowId: uploadWorkflowId(input.uploadId),
    taskQueue: w.taskQueue,
    args: [input],
    ...tagged({
      purpose: 'large upload session: expires it unless committed',
      attributes: { DriveId: input.driveId, UploadId: input.uploadId },
    }),
  });
}

export function signalUploadCommitted(temporal: Client, uploadId: string): Promise<void> {
  return temporal.workflow.getHandle(uploadWorkflowId(uploadId)).signal(uploadCommittedSignal);
}

/**
 * Starts each drainer unless it runs already (every worker asks at boot; the first one wins).
 * Shards of a topic drain in parallel, one worker each.
 */
export async function ensureOutboxDrainers(w: Workflows, drains: DrainInput[]): Promise<void> {
  for (const input of drains) {
    await w.temporal.workflow.start(WorkflowType.outboxDrainer, {
      workflowId: outboxDrainerWorkflowId(input.topic, input.shard.index),
      taskQueue: w.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      ...tagged({
        purpose: `outbox drainer: ${input.topic} shard ${input.shard.index}`,
        attributes: { OutboxTopic: input.topic },
      }),
    });
  }
}

/** Starts a compile job's workflow (`compile-<job_id>`, visible in the Temporal UI). */
export async function startCompileJob(w: Workflows, input: CompileWorkflowInput): Promise<void> {
  try {
    await w.temporal.workflow.start(WorkflowType.compile, {
      workflowId: compileWorkflowId(input.jobId),
      taskQueue: w.taskQueue,
      args: [input],
      ...tagged({
        purpose: 'compile job: admission, then the engine run',
        attributes: { DriveId: input.driveId, JobId: input.jobId, ProjectId: input.fldId },
      }),
    });
  } catch (err) {
    // A retried enqueue of the same job: its workflow exists already.
    if ((err as { name?: string }).name !== 'WorkflowExecutionAlreadyStartedError') throw err;
  }
}

/** Asks a compile job's workflow to stop; a workflow that already ended is not an error. */
export async function cancelCompileJob(temporal: Client, jobId: string): Promise<void> {
  try {
    await temporal.workflow.getHandle(compileWorkflowId(jobId)).cancel();
  } catch (err) {
    if ((err as { name?: string }).name !== 'WorkflowNotFoundError') throw err;
  }
}

/** Tells the project's auto-compile debouncer about a write, starting it when none runs. */
export async function signalProjectChanged(w: Workflows, input: AutoCompileInput, path: string): Promise<void> {
  await w.temporal.workflow.signalWithStart(WorkflowType.autoCompile, {
    workflowId: autoCompileWorkflowId(input.fldId),
    taskQueue: w.taskQueue,
    args: [input],
    signal: projectChangedSignal,
    signalArgs: [{ path }],
    ...tagged({
      purpose: 'auto-compile debouncer: a compile after writes settle',
      attributes: { DriveId: input.driveId, ProjectId: input.fldId },
    }),
  });
}

/** Starts the drive's graph build unless one runs already (then that one's result stands). */
export async function startSemanticGraphBuild(w: Workflows, input: SemanticGraphInput): Promise<void> {
  await w.temporal.workflow.start(WorkflowType.semanticGraph, {
    workflowId: semanticGraphWorkflowId(input.driveId),
    taskQueue: w.taskQueue,
    args: [input],
    ...tagged({ purpose: "semantic graph build: the drive's find index", attributes: { DriveId: input.driveId } }),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}
