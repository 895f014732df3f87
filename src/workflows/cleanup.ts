import { proxyActivities } from '@temporalio/workflow';
import type { CleanupActivities } from '../activities/cleanup.js';

const { purgeExpired } = proxyActivities<CleanupActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { maximumAttempts: 5 },
});

/** Run by the drive-cleanup schedule: hard-deletes whatever has passed its purge_at. */
export async function cleanupWorkflow(): Promise<{ purged: Record<string, number> }> {
  const purged = await purgeExpired();
  return { purged };
}
