/**
 * The workflow type names the worker registers (the exported functions of src/workflows/index.ts;
 * test/foundation/workflow-types.test.ts checks the two lists match at compile time). Clients start
 * and signal workflows by these names, so no module outside src/workflows and src/worker.ts imports
 * workflow code as a value.
 */
export const WorkflowType = {
  claimCeremony: 'claimCeremonyWorkflow',
  cleanup: 'cleanupWorkflow',
  unclaimedDrive: 'unclaimedDriveWorkflow',
  uploadSession: 'uploadSessionWorkflow',
  outboxDrainer: 'outboxDrainerWorkflow',
  compile: 'compileWorkflow',
  autoCompile: 'autoCompileWorkflow',
  semanticGraph: 'semanticGraphWorkflow',
} as const;

export type WorkflowTypeName = (typeof WorkflowType)[keyof typeof WorkflowType];
