import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { IdentityActivities } from '../activities/identity.js';
import {
  decideClaimUpdate,
  driveClaimedSignal,
  unclaimedDriveWorkflowId,
  type ClaimCeremonyInput,
  type ClaimDecision,
  type ClaimOutcome,
} from '../temporal/identity-messages.js';

const { approveClaim, declineClaim, expireClaim } = proxyActivities<IdentityActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { maximumAttempts: 10 },
});

/**
 * One claim attempt. Waits up to the window for the human's decision (an update from the
 * verification page); the outcome is written to PostgreSQL by an activity, where the token
 * endpoint's polls read it.
 */
export async function claimCeremonyWorkflow(input: ClaimCeremonyInput): Promise<ClaimOutcome> {
  let decision: ClaimDecision | undefined;
  let closed = false;
  let outcome: ClaimOutcome | undefined;

  setHandler(
    decideClaimUpdate,
    async (d) => {
      decision = d;
      await condition(() => outcome !== undefined);
      return outcome!;
    },
    {
      validator: (d) => {
        if (closed || decision)
          throw ApplicationFailure.nonRetryable('this claim attempt is no longer pending', 'ClaimNotPending');
        if (d?.decision !== 'approve' && d?.decision !== 'decline')
          throw ApplicationFailure.nonRetryable('bad decision', 'BadDecision');
        if (typeof d.email !== 'string' || !d.email || typeof d.userId !== 'string' || !d.userId)
          throw ApplicationFailure.nonRetryable('email required', 'BadDecision');
      },
    },
  );

  const decided = await condition(() => decision !== undefined, input.windowMs);
  closed = true;
  if (!decided) {
    outcome = await expireClaim(input.attemptId);
  } else if (decision!.decision === 'approve') {
    outcome = await approveClaim(input.attemptId, decision!.userId, decision!.email);
    if (outcome === 'approved') {
      try {
        await getExternalWorkflowHandle(unclaimedDriveWorkflowId(input.driveId)).signal(driveClaimedSignal);
      } catch {
        // No lifecycle workflow running (already ended): nothing to stop.
      }
    }
  } else {
    outcome = await declineClaim(input.attemptId, decision!.email);
  }
  // Let the decision update return the outcome to the page before the workflow completes.
  await condition(allHandlersFinished);
  return outcome;
}
