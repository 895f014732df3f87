import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { IdentityActivities } from '../activities/identity.js';
import { driveClaimedSignal } from '../temporal/identity-messages.js';

const { driveLifecycleState, hideUnclaimedDrive, purgeDrive } = proxyActivities<IdentityActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});

export interface UnclaimedDriveInput {
  driveId: string;
  /** When the drive was registered (epoch ms); the workflow may start before its row commits. */
  createdAtMs: number;
  inactivityMs: number;
  maxAgeMs: number;
}

export type UnclaimedDriveResult = 'claimed' | 'gone' | 'removed_inactive' | 'removed_max_age';

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
  for (;;) {
    const deadline = Math.min(lastActivityMs + input.inactivityMs, createdAtMs + input.maxAgeMs);
    const waitMs = deadline - Date.now();
    if (waitMs > 0) await condition(() => claimed, waitMs);
    if (claimed) return 'claimed';

    const state = await driveLifecycleState(input.driveId);
    if (!state.live) return 'gone';
    if (state.claimed) return 'claimed';
    createdAtMs = state.createdAtMs;
    lastActivityMs = Math.max(state.lastActivityAtMs, createdAtMs);

    const now = Date.now();
    const reason: UnclaimedDriveResult | undefined =
      now >= createdAtMs + input.maxAgeMs ? 'removed_max_age' : now >= lastActivityMs + input.inactivityMs ? 'removed_inactive' : undefined;
    if (!reason) continue;
    // hideUnclaimedDrive refuses a drive claimed in the meantime; then the claim wins.
    if (!(await hideUnclaimedDrive(input.driveId))) return 'claimed';
    await purgeDrive(input.driveId);
    return reason;
  }
}
