import { randomInt } from 'node:crypto';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../lib/errors.js';
import { hashSecret, newSecret } from '../lib/secrets.js';
import type { AppContext } from '../platform/context.js';
import { AgentIdentity } from '../db/entities/agent-identity.js';
import { ClaimAttempt, type ClaimAttemptRow } from '../db/entities/claim-attempt.js';
import { Drive } from '../db/entities/drive.js';
import { HumanUser } from '../db/entities/human-user.js';
import { newId } from '../lib/ids.js';
import type { ClaimOutcome } from '../temporal/identity-messages.js';
import { decideClaimCeremony, startClaimCeremony } from '../temporal/start.js';
import { findLiveDrive } from '../drives/drives.js';
import { workflowsUnavailable } from './identities.js';

/**
 * The claim ceremony. Starting it and deciding it are one Temporal call each; the workflow's
 * activities write every outcome to claim_attempts, which polls read.
 */

// RFC 8628 suggests an alphabet without look-alikes: no 0/O, 1/I/L, 5/S, 2/Z, 8/B, U/V.
export const USER_CODE_ALPHABET = 'ACDEFGHJKMNPQRTWXY34679';
export const USER_CODE_RE = new RegExp(`^[${USER_CODE_ALPHABET}]{8}$`);

function newUserCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** Normalises what a human types (case, spaces, a dash in the middle). */
export function normaliseUserCode(input: string): string {
  return input.toUpperCase().replace(/[\s-]/g, '');
}

export async function startClaim(ctx: AppContext, claimToken: string) {
  const em = ctx.orm.em.fork();
  const identity = await em.findOne(AgentIdentity, { claimTokenHash: hashSecret(claimToken) });
  if (!identity || !(await findLiveDrive(em, identity.driveId))) {
    throw new AppError('CLAIM_TOKEN_INVALID', 'claim_token is unknown or its drive is gone');
  }
  if (identity.status === 'claimed') {
    throw new AppError(
      'ALREADY_CLAIMED',
      'this identity is already claimed; use grant_type=claim at /oauth2/token to get a new assertion',
    );
  }
  const attemptId = newId('cla');
  const windowMs = ctx.config.durations.claimWindowS * 1000;
  const expiresAt = new Date(Date.now() + windowMs);
  // Started before the row commits: if the insert fails, the workflow's timer marks nothing and ends.
  await startClaimCeremony(
    { temporal: ctx.temporal, taskQueue: ctx.config.temporal.taskQueue },
    { attemptId, driveId: identity.driveId, windowMs },
  ).catch(workflowsUnavailable);
  const attemptToken = newSecret('ad_cat_');
  let userCode = '';
  for (let tries = 0; ; tries++) {
    userCode = newUserCode();
    const attempt = em.fork();
    attempt.persist(
      attempt.create(ClaimAttempt, {
        id: attemptId,
        identityId: identity.id,
        attemptTokenHash: hashSecret(attemptToken),
        userCode,
        status: 'pending',
        expiresAt,
      }),
    );
    try {
      await attempt.flush();
      break;
    } catch (err) {
      // A pending attempt already holds this code (23^8 codes, so practically never twice).
      if (!(err instanceof UniqueConstraintViolationException) || tries >= 4) throw err;
    }
  }
  const verificationUri = `${ctx.config.http.webUrl}/claim`;
  return {
    claim_attempt_token: attemptToken,
    user_code: userCode,
    verification_uri: verificationUri,
    verification_uri_complete: `${verificationUri}?code=${userCode}`,
    expires_at: expiresAt.toISOString(),
    interval: 5,
  };
}

export interface PendingClaim {
  attempt: ClaimAttemptRow;
  driveId: string;
}

/** The pending, unexpired attempt with this user code, or null. */
export async function findPendingClaim(em: EntityManager, userCode: string): Promise<PendingClaim | null> {
  const attempt = await em.findOne(ClaimAttempt, { userCode, status: 'pending', expiresAt: { $gt: new Date() } });
  if (!attempt) return null;
  const identity = await em.findOne(AgentIdentity, { id: attempt.identityId });
  if (!identity || !(await findLiveDrive(em, identity.driveId))) return null;
  return { attempt, driveId: identity.driveId };
}

export type DecideResult = ClaimOutcome | 'not_pending';

/** The human's decision, sent as one update to the ceremony workflow; resolves with the written outcome. */
export async function decideClaim(
  ctx: AppContext,
  userCode: string,
  decision: 'approve' | 'decline',
  user: { id: string; email: string },
): Promise<{ result: DecideResult; driveId?: string }> {
  const em = ctx.orm.em.fork();
  const pending = await findPendingClaim(em, userCode);
  if (!pending) return { result: 'not_pending' };
  try {
    const outcome = await decideClaimCeremony(ctx.temporal, pending.attempt.id, {
      decision,
      userId: user.id,
      email: user.email,
    });
    return { result: outcome, driveId: pending.driveId };
  } catch (err) {
    // The workflow closed (window elapsed) or another decision won the race.
    ctx.logger.info({ err, attempt: pending.attempt.id }, 'claim decision refused by the ceremony');
    return { result: 'not_pending' };
  }
}

// ---- Outcome writers, run by the ceremony workflow's activities ----

async function settle(
  em: EntityManager,
  attemptId: string,
  apply: (tx: EntityManager, attempt: ClaimAttemptRow) => Promise<ClaimOutcome>,
): Promise<ClaimOutcome> {
  return em.transactional(async (tx) => {
    const attempt = await tx.findOne(ClaimAttempt, { id: attemptId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!attempt) return 'expired';
    if (attempt.status !== 'pending') return attempt.status;
    return apply(tx, attempt);
  });
}

/**
 * Claims the drive for the web account: owner set, made permanent, identity claimed, old assertion
 * revoked. The drive's owner email is the account's address only once that address is verified
 * (src/identity/email-verification.ts sets it on the account's drives when it is).
 */
export function approveClaim(
  em: EntityManager,
  attemptId: string,
  userId: string,
  email: string,
): Promise<ClaimOutcome> {
  return settle(em, attemptId, async (tx, attempt) => {
    const identity = await tx.findOneOrFail(
      AgentIdentity,
      { id: attempt.identityId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    const drive = await tx.findOne(Drive, { id: identity.driveId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const now = new Date();
    if (!drive || drive.deletedAt) {
      attempt.status = 'expired';
      return 'expired';
    }
    Object.assign(attempt, { status: 'approved', decidedByEmail: email, decidedAt: now });
    if (identity.status !== 'claimed') {
      // Rotation: the pre-claim assertion stops working now; the claim grant issues the new one.
      Object.assign(identity, { status: 'claimed', claimedAt: now, assertionJti: null });
    }
    if (!drive.claimedAt) {
      const user = await tx.findOne(HumanUser, { id: userId });
      const ownerEmail = user?.emailVerifiedAt ? user.email : null;
      Object.assign(drive, { ownerEmail, ownerUserId: userId, claimedAt: now, expiresAt: null });
    }
    await tx.nativeUpdate(
      ClaimAttempt,
      { identityId: identity.id, status: 'pending', id: { $ne: attempt.id } },
      { status: 'expired' },
    );
    return 'approved';
  });
}

export function declineClaim(em: EntityManager, attemptId: string, email: string): Promise<ClaimOutcome> {
  return settle(em, attemptId, async (_tx, attempt) => {
    Object.assign(attempt, { status: 'declined', decidedByEmail: email, decidedAt: new Date() });
    return 'declined';
  });
}

export function expireClaim(em: EntityManager, attemptId: string): Promise<ClaimOutcome> {
  return settle(em, attemptId, async (_tx, attempt) => {
    attempt.status = 'expired';
    return 'expired';
  });
}
