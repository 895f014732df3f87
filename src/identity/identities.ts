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
import { chargeRegistration } from '../platform/rate-limits.js';
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

function agentAuthUnavailable() {
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
): Promise<IssuedToken> {
  const jti = identity.assertionJti ?? undefined;
  const lifetimeS = assertionTtl(ctx, scope);
  const claims = { sub: identity.id, drv: identity.driveId, scope, token_use: 'identity_assertion' as const, jti };
  const { token, expiresAt } = await signServiceToken(ctx.config, claims, lifetimeS);
  return { token, expiresAt, lifetimeS, scope };
}

/** A signed credential: a 15-minute access token or an identity assertion. */
export interface IssuedToken {
  token: string;
  expiresAt: Date;
  lifetimeS: number;
  scope: Scope;
  /** An access token narrowed to `drive:read`. */
  readOnly?: boolean;
}

/** A registered agent: its first assertion, the claim secret (shown once), its drive and identity. */
export interface Registration {
  assertion: IssuedToken;
  claimToken: string;
  driveId: string;
  identityId: string;
  anonymous: boolean;
}

async function issueAccessToken(
  ctx: AppContext,
  identity: { id: string; driveId: string },
  scope: Scope,
  readOnly = false,
): Promise<IssuedToken> {
  const lifetimeS = ctx.config.durations.accessTokenS;
  const claims = { sub: identity.id, drv: identity.driveId, scope, token_use: 'access' as const, readOnly };
  const { token, expiresAt } = await signServiceToken(ctx.config, claims, lifetimeS);
  return { token, expiresAt, lifetimeS, scope, readOnly };
}

/**
 * POST /agent/identity: registration needs the signing key and is rate-limited per client IP (a refusal costs no
 * drive), then an anonymous agent gets a new unclaimed drive and an ID-JAG one the asserted user's drive.
 */
export async function registerAgent(
  ctx: AppContext,
  clientIp: string,
  request: { type: 'anonymous' } | { type: 'identity_assertion'; agent_provider: string; assertion: string },
): Promise<Registration> {
  if (!ctx.config.secrets.agentSigningKey) throw agentAuthUnavailable();
  await chargeRegistration(ctx, clientIp);
  return request.type === 'anonymous'
    ? registerAnonymous(ctx)
    : registerWithIdJag(ctx, request.agent_provider, request.assertion);
}

/** Creates an unclaimed drive and its identity. The lifecycle workflow starts first, so no drive exists without one. */
async function registerAnonymous(ctx: AppContext): Promise<Registration> {
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
    return { assertion, claimToken, driveId: identity.driveId, identityId: identity.id, anonymous: true };
  });
}

/** ID-JAG registration: a claimed identity bound to the asserted user's drive (created when the user has none). */
async function registerWithIdJag(ctx: AppContext, agentProvider: string, assertion: string): Promise<Registration> {
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
    return { assertion: signed, claimToken, driveId: identity.driveId, identityId: identity.id, anonymous: false };
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

/**
 * RFC 7523 exchange: a current identity assertion for a 15-minute access token; `readOnly` (scope `drive:read`) narrows
 * the token to reads.
 */
export async function exchangeAssertion(ctx: AppContext, assertion: string, readOnly = false): Promise<IssuedToken> {
  const { identity, scope } = await verifyCurrentAssertion(ctx, assertion);
  return issueAccessToken(ctx, identity, scope, readOnly);
}

/**
 * The claim grant: the ceremony's state, read from PostgreSQL. Once the identity is claimed it
 * re-issues a 90-day assertion (rotating the previous one) with a fresh access token.
 */
export async function claimGrant(
  ctx: AppContext,
  claimToken: string,
  attemptToken?: string,
): Promise<{ access: IssuedToken; assertion: IssuedToken }> {
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
      return { access, assertion: signed };
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
