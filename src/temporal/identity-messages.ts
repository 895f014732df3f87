import { defineSignal, defineUpdate } from '@temporalio/workflow';

/** Messages of the identity workflows, shared by the API (client side) and the workflows. */
export type ClaimOutcome = 'approved' | 'declined' | 'expired';
export interface ClaimDecision {
  decision: 'approve' | 'decline';
  /** The signed-in web account deciding; becomes the drive's owner on approval. */
  userId: string;
  email: string;
}

/** The human's decision; resolves once the outcome is written to PostgreSQL. */
export const decideClaimUpdate = defineUpdate<ClaimOutcome, [ClaimDecision]>('decideClaim');

/** Sent by the claim ceremony when it claims a drive, so the drive's lifecycle workflow ends. */
export const driveClaimedSignal = defineSignal('driveClaimed');

export const claimWorkflowId = (attemptId: string) => `claim-${attemptId}`;
export const unclaimedDriveWorkflowId = (driveId: string) => `unclaimed-drive-${driveId}`;
