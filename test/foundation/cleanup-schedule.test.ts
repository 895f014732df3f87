import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/lib/config.js';
import { CLEANUP_SCHEDULE_ID } from '../../src/temporal/schedules.js';
import { createTemporalClient } from '../../src/temporal/client.js';
import type { Client } from '@temporalio/client';

let client: Client;
beforeAll(async () => {
  client = await createTemporalClient(loadConfig(process.env).temporal);
});
afterAll(async () => client?.connection.close());

describe('cleanup schedule', () => {
  it('exists after worker start-up and its runs complete on the worker', async () => {
    const handle = client.schedule.getHandle(CLEANUP_SCHEDULE_ID);
    const deadline = Date.now() + 30_000;
    let description;
    while (Date.now() < deadline) {
      description = await handle.describe().catch(() => undefined);
      if (description) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(description?.action.workflowType).toBe('cleanupWorkflow');
    await handle.trigger();

    let completed = 0;
    while (Date.now() < deadline && completed === 0) {
      for await (const wf of client.workflow.list({
        query: `WorkflowType = 'cleanupWorkflow' AND ExecutionStatus = 'Completed'`,
      })) {
        if (wf.type === 'cleanupWorkflow') completed++;
      }
      if (!completed) await new Promise((r) => setTimeout(r, 500));
    }
    expect(completed).toBeGreaterThan(0);
  });
});
