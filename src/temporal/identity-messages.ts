import { defineSignal, defineUpdate } from '@temporalio/workflow';

/** Ids, inputs and messages of the identity workflows, shared by the API (client side) and the workflows. */
export type ClaimOutcome = 'approved' | 'declined' | 'expired';
export interface ClaimDecision {
  decision: 'approve' | 'decline';
  /** The signed-in web account deciding; becomes the drive's owner on approval. */
  userId: string;
  email: string;
}

export interface ClaimCeremonyInput {
  attemptId: string;
  driveId: string;
  windowMs: number;
}

export interface UnclaimedDriveInput {
  driveId: string;
  /** When the drive was registered (epoch ms); the workflow may start before its row commits. */
  createdAtMs: number;
  inactivityMs: number;
  maxAgeMs: number;
}

export type UnclaimedDriveResult = 'claimed' | 'gone' | 'removed_inactive' | 'removed_max_age';

/** The human's decision; resolves once the outcome is written to PostgreSQL. */
export const decideClaimUpdate = defineUpdate<ClaimOutcome, [ClaimDecision]>('decideClaim');

/** Sent by the claim ceremony when it claims a drive, so the drive's lifecycle workflow ends. */
export const driveClaimedSignal = defineSignal('driveClaimed');

export const claimWorkflowId = (attemptId: string) => `claim-${attemptId}`;
export const unclaimedDriveWorkflowId = (driveId: string) => `unclaimed-drive-${driveId}`;
