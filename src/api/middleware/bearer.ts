import type { RequestHandler } from 'express';
import type { AuthContext } from '../http/auth-context.js';
import type { AppContext } from '../../context.js';
import { AgentAuthNotConfigured, looksLikeJwt, peekTokenUse, TokenInvalid, verifyServiceToken } from '../../identity/tokens.js';
import { OAuthError } from '../../identity/oauth-error.js';
import { API_KEY_PREFIX } from '../../identity/api-keys.js';
import { apiKeyState, tokenDriveState, type CredentialState } from '../../identity/credential-state.js';
import { verifyCurrentAssertion } from '../../identity/identities.js';
import { AppError } from '../../errors.js';

/** Who a credential names; `state` when the verifier loaded it already (the API key query does). */
type VerifiedCredential = Omit<AuthContext, 'state'> & { state?: CredentialState };

/** A verifier for one kind of bearer credential; returns undefined when the credential is not its kind. */
export type CredentialVerifier = (ctx: AppContext, credential: string) => Promise<VerifiedCredential | undefined>;

/** An API key, looked up with its drive's state in one query (see credential-state.ts). */
const apiKeyVerifier: CredentialVerifier = async (ctx, credential) => {
  if (!credential.startsWith(API_KEY_PREFIX)) return undefined;
  const key = await apiKeyState(ctx.prepared, credential);
  if (!key) throw unauthenticated('invalid or revoked API key');
  return { driveId: key.driveId, identityId: null, scope: 'full', kind: 'api_key', credentialId: key.keyId, state: key };
};

/**
 * Access tokens from /oauth2/token. Identity assertions are signed with the same key but carry
 * token_use=identity_assertion and are refused here: they are only for the exchange (and MCP).
 * The budget key is the agent identity, so minting fresh access tokens does not reset it.
 */
const accessTokenVerifier: CredentialVerifier = async (ctx, credential) => {
  if (!looksLikeJwt(credential)) return undefined;
  try {
    const claims = await verifyServiceToken(ctx.config, credential, 'access');
    return { driveId: claims.drv, identityId: claims.sub, scope: claims.scope, kind: 'access_token', credentialId: claims.sub };
  } catch (err) {
    if (err instanceof AgentAuthNotConfigured) throw unauthenticated('access tokens are not accepted: agent auth is not configured');
    if (!(err instanceof TokenInvalid)) throw err;
    if (err.reason === 'expired') throw unauthenticated('access token expired; repeat the exchange at /oauth2/token');
    if (err.reason === 'wrong_use') {
      throw unauthenticated('identity assertions are not accepted on /v0; exchange it at /oauth2/token for an access token');
    }
    throw unauthenticated('invalid access token');
  }
};

/**
 * Identity assertions as bearer: for MCP only (spec 5.3), never in the /v0 list. Mount with
 * `bearerAuth(ctx, [identityAssertionVerifier])` or call it from the MCP transport.
 */
export const identityAssertionVerifier: CredentialVerifier = async (ctx, credential) => {
  if (!looksLikeJwt(credential) || peekTokenUse(credential) !== 'identity_assertion') return undefined;
  try {
    const { identity, scope } = await verifyCurrentAssertion(ctx, credential);
    return { driveId: identity.driveId, identityId: identity.id, scope, kind: 'identity_assertion', credentialId: identity.id };
  } catch (err) {
    // The message agents are told to expect (REFERENCE §4.10): then retry grant_type=claim or re-register.
    if (err instanceof OAuthError) throw unauthenticated('Invalid or revoked agent credential');
    throw err;
  }
};

export function unauthenticated(message: string) {
  return new AppError('UNAUTHENTICATED', message, {}, { 'WWW-Authenticate': 'Bearer' });
}

/**
 * Authenticates every /v0 request: an API key or an access token. Anything else (identity
 * assertions, MCP-only tokens, garbage) is 401. The drive must still be live, except with
 * `allowDeletedDrive` (drive restore and trash), where a soft-deleted drive's credentials still work.
 */
export function bearerAuth(
  ctx: AppContext,
  extraVerifiers: CredentialVerifier[] = [],
  opts: { allowDeletedDrive?: boolean } = {},
): RequestHandler {
  const verifiers = [apiKeyVerifier, ...extraVerifiers, accessTokenVerifier];
  return async (req, _res, next) => {
    try {
      const header = req.get('authorization') ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) throw unauthenticated('missing bearer credential');
      let auth: VerifiedCredential | undefined;
      for (const verify of verifiers) {
        auth = await verify(ctx, match[1]);
        if (auth) break;
      }
      if (!auth) throw unauthenticated('unrecognised bearer credential');
      const state = auth.state ?? (await tokenDriveState(ctx.prepared, auth.driveId, auth.credentialId));
      if (!state || (state.driveDeleted && !opts.allowDeletedDrive)) throw unauthenticated('drive is deleted or gone');
      req.auth = { ...auth, state };
      next();
    } catch (err) {
      next(err);
    }
  };
}
