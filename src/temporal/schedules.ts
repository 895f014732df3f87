import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../lib/config.js';
import { tagged } from './search-attributes.js';
import { WorkflowType } from './workflow-types.js';

export const CLEANUP_SCHEDULE_ID = 'drive-cleanup';

/** Creates the schedule that runs the trash/drive purge every interval; a second call is a no-op. */
export async function ensureCleanupSchedule(client: Client, config: Config): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: CLEANUP_SCHEDULE_ID,
      spec: { intervals: [{ every: `${config.durations.cleanupIntervalS}s` }] },
      action: {
        type: 'startWorkflow',
        workflowType: WorkflowType.cleanup,
        args: [],
        taskQueue: config.temporal.taskQueue,
        workflowId: 'drive-cleanup-run',
        // No drive: the run sweeps all of them.
        ...tagged({ purpose: 'cleanup: purges trash and expired drives, credentials, orphans', attributes: {} }),
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
