import type { AppContext } from '../platform/context.js';
import type { ClaimOutcome } from '../temporal/identity-messages.js';
import { approveClaim, declineClaim, expireClaim } from '../identity/claims.js';
import { hideDrive, lifecycleState, purgeDrive, type LifecycleState } from '../drives/drive-lifecycle.js';

export interface IdentityActivities {
  driveLifecycleState(driveId: string): Promise<LifecycleState>;
  /** Hides the drive only if it is still unclaimed; false when a claim got there first. */
  hideUnclaimedDrive(driveId: string): Promise<boolean>;
  purgeDrive(driveId: string): Promise<boolean>;
  approveClaim(attemptId: string, userId: string, email: string): Promise<ClaimOutcome>;
  declineClaim(attemptId: string, email: string): Promise<ClaimOutcome>;
  expireClaim(attemptId: string): Promise<ClaimOutcome>;
}

/** Thin adapters over the identity services, for the claim ceremony and unclaimed-drive workflows. */
export function createIdentityActivities(ctx: AppContext): IdentityActivities {
  const em = () => ctx.orm.em.fork();
  return {
    driveLifecycleState: (driveId) => lifecycleState(em(), driveId),
    hideUnclaimedDrive: (driveId) => hideDrive(em(), driveId, { onlyUnclaimed: true }),
    purgeDrive: (driveId) => purgeDrive(em(), driveId),
    approveClaim: (attemptId, userId, email) => approveClaim(em(), attemptId, userId, email),
    declineClaim: (attemptId, email) => declineClaim(em(), attemptId, email),
    expireClaim: (attemptId) => expireClaim(em(), attemptId),
  };
}
