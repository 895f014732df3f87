import { expect, it } from 'vitest';
import { WorkflowType, type WorkflowTypeName } from '../../src/temporal/workflow-types.js';

// Type-only: workflow code is never loaded outside the worker's sandbox. `npm run lint` (tsc) fails
// here when a name clients start workflows by has no workflow, or a workflow has no name.
type Registered = keyof typeof import('../../src/workflows/index.js');
type Unregistered = Exclude<WorkflowTypeName, Registered>;
type Unnamed = Exclude<Registered, WorkflowTypeName>;
const namesMatch: [Unregistered, Unnamed] extends [never, never] ? true : false = true;

it('every workflow type name is a workflow the worker registers, and every workflow has a name', () => {
  expect(namesMatch).toBe(true);
  expect(new Set(Object.values(WorkflowType)).size).toBe(Object.values(WorkflowType).length);
});
