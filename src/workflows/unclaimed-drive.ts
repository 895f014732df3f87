import { condition, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { IdentityActivities } from '../activities/identity.js';
import {
  driveClaimedSignal,
  type UnclaimedDriveInput,
  type UnclaimedDriveResult,
} from '../temporal/identity-messages.js';

const { driveLifecycleState, hideUnclaimedDrive, purgeDrive } = proxyActivities<IdentityActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { maximumAttempts: 10 },
});

/**
 * One per unclaimed drive. Sleeps until the nearer of the inactivity and max-age deadlines,
 * then re-reads the drive: activity since then pushes the inactivity deadline out; otherwise
 * the drive is hidden at once and its data purged. A claim ends the workflow.
 */
export async function unclaimedDriveWorkflow(input: UnclaimedDriveInput): Promise<UnclaimedDriveResult> {
  let claimed = false;
  setHandler(driveClaimedSignal, () => {
    claimed = true;
  });

  let createdAtMs = input.createdAtMs;
  let lastActivityMs = input.createdAtMs;
  // Workflow time, from history only: the run's start, then the clock each state read returns.
  let nowMs = workflowInfo().runStartTime.getTime();
  for (;;) {
    const deadline = Math.min(lastActivityMs + input.inactivityMs, createdAtMs + input.maxAgeMs);
    const waitMs = deadline - nowMs;
    if (waitMs > 0) await condition(() => claimed, waitMs);
    if (claimed) return 'claimed';

    const state = await driveLifecycleState(input.driveId);
    if (!state.live) return 'gone';
    if (state.claimed) return 'claimed';
    createdAtMs = state.createdAtMs;
    lastActivityMs = Math.max(state.lastActivityAtMs, createdAtMs);
    nowMs = state.nowMs;

    const reason: UnclaimedDriveResult | undefined =
      nowMs >= createdAtMs + input.maxAgeMs
        ? 'removed_max_age'
        : nowMs >= lastActivityMs + input.inactivityMs
          ? 'removed_inactive'
          : undefined;
    if (!reason) continue;
    // hideUnclaimedDrive refuses a drive claimed in the meantime; then the claim wins.
    if (!(await hideUnclaimedDrive(input.driveId))) return 'claimed';
    await purgeDrive(input.driveId);
    return reason;
  }
}
