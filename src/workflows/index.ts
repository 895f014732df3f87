// Every workflow the worker runs. Workflow code is deterministic: no I/O, no clocks, only activities.
// Workflows import only @temporalio/workflow, their messages (src/temporal/*-messages.ts) and activity types.
// Clients address them by the names in src/temporal/workflow-types.ts (test/foundation/workflow-types.test.ts
// checks at compile time that the two lists match).
export { claimCeremonyWorkflow } from './claim-ceremony.js';
export { cleanupWorkflow } from './cleanup.js';
export { unclaimedDriveWorkflow } from './unclaimed-drive.js';
export { uploadSessionWorkflow } from './upload-session.js';
export { outboxDrainerWorkflow } from './outbox-drainer.js';
export { compileWorkflow } from './compile.js';
export { autoCompileWorkflow } from './auto-compile.js';
export { semanticGraphWorkflow } from './semantic-graph.js';
