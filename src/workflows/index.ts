// Every workflow the worker runs. Workflow code is deterministic: no I/O, no clocks, only activities.
export { cleanupWorkflow } from './cleanup.js';
export { indexingWorkflow } from './indexing.js';
