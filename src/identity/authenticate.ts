import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import type { Principal } from '../platform/request-context.js';
import { API_KEY_PREFIX } from './api-keys.js';
import { apiKeyState, tokenDriveState, type ChargeAtLookup, type CredentialState } from './credential-state.js';
import type { WriteCharge, WriteLimits } from '../platform/rate-limits.js';
import { verifyCurrentAssertion } from './identities.js';
import { MCP_ACCESS_PREFIX, verifyMcpAccessToken } from './mcp-oauth.js';
import { OAuthError } from './oauth-error.js';
import { AgentAuthNotConfigured, looksLikeJwt, peekTokenUse, TokenInvalid, verifyServiceToken } from './tokens.js';

/**
 * The one authentication rule for bearer credentials, asked by every door. REST (/v0) accepts API
 * keys and access tokens; MCP also accepts identity assertions (spec 5.3). Anything else is 401.
 */
export type CredentialKind = Principal['kind'];

export interface Authenticated extends Principal {
  /** The drive's state and the credential's writes this hour (one query for API keys). */
  state: CredentialState;
  /** The write's budget charge when authentication made it (`chargeWrite`, API keys): settle it, not charge again. */
  writeCharge?: WriteCharge;
}

type Verified = Principal & { state?: CredentialState; writeCharge?: WriteCharge };
type Verifier = (app: AppContext, credential: string, charge?: ChargeAtLookup) => Promise<Verified | undefined>;

export function unauthenticated(message: string) {
  return new AppError('UNAUTHENTICATED', message, {}, { 'WWW-Authenticate': 'Bearer' });
}

/** An API key, looked up with its drive's state in one query (see credential-state.ts). */
const apiKey: Verifier = async (app, credential, charge) => {
  if (!credential.startsWith(API_KEY_PREFIX)) return undefined;
  const key = await apiKeyState(app.prepared, credential, charge);
  if (!key) throw unauthenticated('invalid or revoked API key');
  return {
    driveId: key.driveId,
    identityId: null,
    scope: 'full',
    kind: 'api_key',
    credentialId: key.keyId,
    credentialName: key.label,
    memoryPrefix: key.memoryPrefix,
    readOnly: key.readOnly,
    state: key,
    writeCharge: key.writeCharge,
  };
};

/**
 * Access tokens from /oauth2/token. Identity assertions are signed with the same key but carry
 * token_use=identity_assertion and are refused here: they are only for the exchange (and MCP).
 * The budget key is the agent identity, so minting fresh access tokens does not reset it.
 */
const accessToken: Verifier = async (app, credential) => {
  if (!looksLikeJwt(credential)) return undefined;
  try {
    const claims = await verifyServiceToken(app.config, credential, 'access');
    return {
      driveId: claims.drv,
      identityId: claims.sub,
      scope: claims.scope,
      kind: 'access_token',
      credentialId: claims.sub,
      readOnly: claims.readOnly,
    };
  } catch (err) {
    if (err instanceof AgentAuthNotConfigured)
      throw unauthenticated('access tokens are not accepted: agent auth is not configured');
    if (!(err instanceof TokenInvalid)) throw err;
    if (err.reason === 'expired') throw unauthenticated('access token expired; repeat the exchange at /oauth2/token');
    if (err.reason === 'wrong_use') {
      throw unauthenticated(
        'identity assertions are not accepted on /v0; exchange it at /oauth2/token for an access token',
      );
    }
    throw unauthenticated('invalid access token');
  }
};

/** Identity assertions as bearer: MCP only (spec 5.3); each use counts as activity for an unclaimed drive. */
const identityAssertion: Verifier = async (app, credential) => {
  if (!looksLikeJwt(credential) || peekTokenUse(credential) !== 'identity_assertion') return undefined;
  try {
    const { identity, scope } = await verifyCurrentAssertion(app, credential);
    return {
      driveId: identity.driveId,
      identityId: identity.id,
      scope,
      kind: 'identity_assertion',
      credentialId: identity.id,
      readOnly: false,
    };
  } catch (err) {
    // The message agents are told to expect (REFERENCE §4.10): then retry grant_type=claim or re-register.
    if (err instanceof OAuthError) throw unauthenticated('Invalid or revoked agent credential');
    throw err;
  }
};

/** MCP-only OAuth access tokens (adat_…): accepted where `mcp_oauth` is asked for, i.e. only at /mcp (spec 5.2). */
const mcpOAuth: Verifier = async (app, credential) => {
  if (!credential.startsWith(MCP_ACCESS_PREFIX)) return undefined;
  const principal = await verifyMcpAccessToken(app, credential);
  if (!principal) throw unauthenticated('invalid, expired or revoked MCP OAuth access token');
  return principal;
};

/** Tried in this order: the cheap prefix check first; assertions before access tokens (both are JWTs). */
const VERIFIERS: [CredentialKind, Verifier][] = [
  ['api_key', apiKey],
  ['mcp_oauth', mcpOAuth],
  ['identity_assertion', identityAssertion],
  ['access_token', accessToken],
];

/**
 * Who a bearer credential names, if it is one of `kinds`. The drive must still be live, except with
 * `allowDeletedDrive` (drive restore and trash), where a soft-deleted drive's credentials still work.
 * `chargeWrite`: the request is a write its door charges to the write budget; an API key's lookup
 * then charges it in the same statement (`writeCharge`), one round trip less per write.
 */
export async function authenticate(
  app: AppContext,
  credential: string,
  opts: { kinds: readonly CredentialKind[]; allowDeletedDrive?: boolean; chargeWrite?: WriteLimits },
): Promise<Authenticated> {
  let verified: Verified | undefined;
  const charge = opts.chargeWrite && { limits: opts.chargeWrite, allowDeletedDrive: opts.allowDeletedDrive ?? false };
  for (const [kind, verify] of VERIFIERS) {
    if (!opts.kinds.includes(kind)) continue;
    verified = await verify(app, credential, charge);
    if (verified) break;
  }
  if (!verified && credential.startsWith(MCP_ACCESS_PREFIX))
    throw unauthenticated('MCP OAuth tokens are accepted only at /mcp');
  if (!verified) throw unauthenticated('unrecognised bearer credential');
  const preClaim = verified.scope === 'pre_claim' ? verified.identityId : null;
  const state =
    verified.state ?? (await tokenDriveState(app.prepared, verified.driveId, verified.credentialId, preClaim));
  if (!state || (state.driveDeleted && !opts.allowDeletedDrive)) throw unauthenticated('drive is deleted or gone');
  // A claim retires the pre-claim credentials at once: the new assertion comes from grant_type=claim.
  if (preClaim && 'identityClaimed' in state && state.identityClaimed) {
    throw unauthenticated(
      'this token was minted before the drive was claimed; get the new assertion with grant_type=claim and exchange it',
    );
  }
  return { ...verified, state };
}
