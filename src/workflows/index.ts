// Every workflow the worker runs. Workflow code is deterministic: no I/O, no clocks, only activities.
export { claimCeremonyWorkflow } from './claim-ceremony.js';
export { cleanupWorkflow } from './cleanup.js';
export { unclaimedDriveWorkflow } from './unclaimed-drive.js';
export { uploadSessionWorkflow } from './upload-session.js';
export { indexingWorkflow } from './indexing.js';
