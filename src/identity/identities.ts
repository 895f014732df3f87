import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../lib/errors.js';
import { OAuthError } from './oauth-error.js';
import { hashSecret, newSecret } from '../lib/secrets.js';
import { AgentAuthNotConfigured, signServiceToken, TokenInvalid, verifyServiceToken, type Scope } from './tokens.js';
import type { AppContext } from '../platform/context.js';
import { AgentIdentity, type AgentIdentityRow } from '../db/entities/agent-identity.js';
import { ClaimAttempt } from '../db/entities/claim-attempt.js';
import { newId } from '../lib/ids.js';
import { startUnclaimedDrive } from '../temporal/start.js';
import { recordDriveActivity } from '../drives/drive-lifecycle.js';
import { createDrive, findDriveForVerifiedEmail, findLiveDrive } from '../drives/drives.js';
import { consumeIdJagJti, verifyIdJag } from './id-jag.js';

/**
 * Agent identities: registration (anonymous or ID-JAG), the jwt-bearer exchange and the
 * claim grant. An identity has exactly one valid assertion at a time (its `assertion_jti`).
 */
export const CLAIM_TOKEN_PREFIX = 'ad_claim_';

/** Temporal could not take the workflow start: nothing was written, so the caller may simply retry. */
export function workflowsUnavailable(): never {
  throw new AppError(
    'WORKFLOWS_UNAVAILABLE',
    'the workflow service is unavailable; retry later',
    {},
    { 'Retry-After': '5' },
  );
}

export function agentAuthUnavailable() {
  return new AppError(
    'AGENT_AUTH_NOT_CONFIGURED',
    'agent registration is not configured on this server; retry later',
    {},
    { 'Retry-After': '60' },
  );
}

/** Maps a missing signing key to the registration error; anything else passes through. */
async function withSigning<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AgentAuthNotConfigured) throw agentAuthUnavailable();
    throw err;
  }
}

function assertionTtl(ctx: AppContext, scope: Scope) {
  return scope === 'full' ? ctx.config.durations.claimedAssertionS : ctx.config.durations.anonAssertionS;
}

async function issueAssertion(
  ctx: AppContext,
  identity: Pick<AgentIdentityRow, 'id' | 'driveId' | 'assertionJti'>,
  scope: Scope,
) {
  return signServiceToken(
    ctx.config,
    {
      sub: identity.id,
      drv: identity.driveId,
      scope,
      token_use: 'identity_assertion',
      jti: identity.assertionJti ?? undefined,
    },
    assertionTtl(ctx, scope),
  );
}

async function issueAccessToken(ctx: AppContext, identity: { id: string; driveId: string }, scope: Scope) {
  const ttl = ctx.config.durations.accessTokenS;
  const { token } = await signServiceToken(
    ctx.config,
    { sub: identity.id, drv: identity.driveId, scope, token_use: 'access' },
    ttl,
  );
  return { access_token: token, token_type: 'Bearer' as const, expires_in: ttl, scope };
}

/** Creates an unclaimed drive and its identity. The lifecycle workflow starts first, so no drive exists without one. */
export async function registerAnonymous(ctx: AppContext) {
  return withSigning(async () => {
    const { durations } = ctx.config;
    const now = Date.now();
    const identity = {
      id: newId('aid'),
      driveId: newId('drv'),
      kind: 'anonymous' as const,
      status: 'unclaimed' as const,
      assertionJti: randomUUID(),
    };
    const claimToken = newSecret(CLAIM_TOKEN_PREFIX);
    // Signed first, so nothing is written when the key is unusable.
    const assertion = await issueAssertion(ctx, identity, 'pre_claim');
    // Started before the commit: if the commit fails, the workflow finds no drive at its deadline and ends.
    await startUnclaimedDrive(
      { temporal: ctx.temporal, taskQueue: ctx.config.temporal.taskQueue },
      {
        driveId: identity.driveId,
        createdAtMs: now,
        inactivityMs: durations.unclaimedInactivityS * 1000,
        maxAgeMs: durations.unclaimedMaxAgeS * 1000,
      },
    ).catch(workflowsUnavailable);
    await ctx.orm.em.fork().transactional(async (tx) => {
      await createDrive(tx, { id: identity.driveId, expiresAt: new Date(now + durations.unclaimedMaxAgeS * 1000) });
      tx.persist(tx.create(AgentIdentity, { ...identity, claimTokenHash: hashSecret(claimToken) }));
      await tx.flush();
    });
    return {
      identity_assertion: assertion.token,
      claim_token: claimToken,
      claim_metadata: {
        claim_endpoint: `${ctx.config.http.baseUrl}/agent/identity/claim`,
        supported_email_hints: true,
      },
      drive_id: identity.driveId,
      agent_identity_id: identity.id,
      scope: 'pre_claim' as const,
      expires_at: assertion.expiresAt.toISOString(),
    };
  });
}

/** ID-JAG registration: a claimed identity bound to the asserted user's drive (created when the user has none). */
export async function registerWithIdJag(ctx: AppContext, agentProvider: string, assertion: string) {
  return withSigning(async () => {
    const jag = await verifyIdJag(ctx.config, agentProvider, assertion);
    const claimToken = newSecret(CLAIM_TOKEN_PREFIX);
    const { identity, signed } = await ctx.orm.em.fork().transactional(async (tx) => {
      await consumeIdJagJti(tx, jag);
      // Serialise first-time registrations of one email so two racing calls do not create two drives.
      await tx.execute('select pg_advisory_xact_lock(hashtext(lower(?)))', [jag.email]);
      const drive =
        (await findDriveForVerifiedEmail(tx, jag.email)) ?? (await createDrive(tx, { ownerEmail: jag.email }));
      const row = tx.create(AgentIdentity, {
        id: newId('aid'),
        driveId: drive.id,
        kind: 'id_jag',
        status: 'claimed',
        claimTokenHash: hashSecret(claimToken),
        assertionJti: randomUUID(),
        provider: jag.provider,
        subject: jag.subject,
        email: jag.email,
        claimedAt: new Date(),
      });
      await tx.persist(row).flush();
      // Signed inside the transaction: an unusable key rolls the rows back.
      return { identity: row, signed: await issueAssertion(ctx, row, 'full') };
    });
    return {
      identity_assertion: signed.token,
      claim_token: claimToken,
      drive_id: identity.driveId,
      agent_identity_id: identity.id,
      scope: 'full' as const,
      expires_at: signed.expiresAt.toISOString(),
    };
  });
}

async function liveIdentity(em: EntityManager, where: { id: string } | { claimTokenHash: string }) {
  const identity = await em.findOne(AgentIdentity, where);
  if (!identity || !(await findLiveDrive(em, identity.driveId))) return null;
  return identity;
}

/**
 * Checks an identity assertion: signature, expiry, the identity's current jti (rotation) and a
 * live drive. Counts as activity for an unclaimed drive. Used by the token exchange and by MCP,
 * which accepts assertions as bearer; failures are `invalid_grant`.
 */
export async function verifyCurrentAssertion(
  ctx: AppContext,
  assertion: string,
): Promise<{ identity: AgentIdentityRow; scope: Scope }> {
  let claims;
  try {
    claims = await verifyServiceToken(ctx.config, assertion, 'identity_assertion');
  } catch (err) {
    if (err instanceof TokenInvalid)
      throw new OAuthError(
        'invalid_grant',
        `identity assertion is ${err.reason === 'expired' ? 'expired' : 'invalid'}; re-register`,
      );
    throw err;
  }
  const em = ctx.orm.em.fork();
  const identity = await liveIdentity(em, { id: claims.sub });
  if (!identity) throw new OAuthError('invalid_grant', 'the identity is gone; re-register');
  if (identity.assertionJti !== claims.jti) {
    throw new OAuthError(
      'invalid_grant',
      'identity assertion was revoked (rotated by a claim); use grant_type=claim with the claim_token',
    );
  }
  if (identity.status === 'unclaimed') await recordDriveActivity(em, identity.driveId);
  return { identity, scope: identity.status === 'claimed' ? 'full' : 'pre_claim' };
}

/** RFC 7523 exchange: a current identity assertion for a 15-minute access token. */
export async function exchangeAssertion(ctx: AppContext, assertion: string) {
  const { identity, scope } = await verifyCurrentAssertion(ctx, assertion);
  return issueAccessToken(ctx, identity, scope);
}

/**
 * The claim grant: the ceremony's state, read from PostgreSQL. Once the identity is claimed it
 * re-issues a 90-day assertion (rotating the previous one) with a fresh access token.
 */
export async function claimGrant(ctx: AppContext, claimToken: string, attemptToken?: string) {
  const em = ctx.orm.em.fork();
  const identity = await liveIdentity(em, { claimTokenHash: hashSecret(claimToken) });
  if (!identity)
    throw new OAuthError('invalid_grant', 'the identity is gone or the claim_token is unknown; re-register');
  if (identity.status === 'claimed') {
    return withSigning(async () => {
      // Signed before the new jti is stored, so a signing failure leaves the current assertion valid.
      const rotated = { id: identity.id, driveId: identity.driveId, assertionJti: randomUUID() };
      const signed = await issueAssertion(ctx, rotated, 'full');
      const access = await issueAccessToken(ctx, rotated, 'full');
      identity.assertionJti = rotated.assertionJti;
      await em.flush();
      return {
        ...access,
        identity_assertion: signed.token,
        identity_assertion_expires_at: signed.expiresAt.toISOString(),
      };
    });
  }
  const attempt = attemptToken
    ? await em.findOne(ClaimAttempt, { identityId: identity.id, attemptTokenHash: hashSecret(attemptToken) })
    : await em.findOne(ClaimAttempt, { identityId: identity.id }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  if (!attempt)
    throw new OAuthError(
      'invalid_request',
      'no claim ceremony has been started for this identity; POST /agent/identity/claim first',
    );
  switch (attempt.status) {
    case 'pending':
      if (attempt.expiresAt.getTime() <= Date.now())
        throw new OAuthError('expired_token', 'the claim window has elapsed; start a new claim');
      throw new OAuthError('authorization_pending', 'waiting for the human to approve; poll again in about 5 seconds');
    case 'declined':
      throw new OAuthError('access_denied', 'the human declined the claim');
    case 'expired':
      throw new OAuthError('expired_token', 'the claim window has elapsed; start a new claim');
    case 'approved':
      // Not reached: approval claims the identity in the same transaction, handled above.
      throw new OAuthError('authorization_pending', 'claim is being finalised; poll again');
  }
}
