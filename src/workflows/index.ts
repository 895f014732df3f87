// Every workflow the worker runs. Workflow code is deterministic: no I/O, no clocks, only activities.
export { cleanupWorkflow } from './cleanup.js';
export { uploadSessionWorkflow } from './upload-session.js';
