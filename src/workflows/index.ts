// Every workflow the worker runs. Workflow code is deterministic: no I/O, no clocks, only activities.
// Workflows import only @temporalio/workflow, their messages (src/temporal/*-messages.ts) and activity types.
import type { WorkflowTypeName } from '../temporal/workflow-types.js';
import { claimCeremonyWorkflow } from './claim-ceremony.js';
import { cleanupWorkflow } from './cleanup.js';
import { indexingWorkflow } from './indexing.js';
import { unclaimedDriveWorkflow } from './unclaimed-drive.js';
import { uploadSessionWorkflow } from './upload-session.js';

export { claimCeremonyWorkflow, cleanupWorkflow, unclaimedDriveWorkflow, uploadSessionWorkflow, indexingWorkflow };

// Clients start workflows by name (src/temporal/workflow-types.ts): this fails to compile when a
// name there has no workflow here, or a workflow here has no name there.
void ({ claimCeremonyWorkflow, cleanupWorkflow, unclaimedDriveWorkflow, uploadSessionWorkflow, indexingWorkflow } satisfies Record<
  WorkflowTypeName,
  (...args: never[]) => Promise<unknown>
>);
