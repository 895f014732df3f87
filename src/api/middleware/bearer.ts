import type { RequestHandler } from 'express';
import type { AuthContext } from '../../auth/context.js';
import type { AppContext } from '../../context.js';
import { API_KEY_PREFIX, findLiveApiKey } from '../../services/api-keys.js';
import { findDrive, findLiveDrive } from '../../services/drives.js';
import { ApiError } from '../errors.js';

/** A verifier for one kind of bearer credential; returns undefined when the credential is not its kind. */
export type CredentialVerifier = (ctx: AppContext, credential: string) => Promise<AuthContext | undefined>;

const apiKeyVerifier: CredentialVerifier = async (ctx, credential) => {
  if (!credential.startsWith(API_KEY_PREFIX)) return undefined;
  const key = await findLiveApiKey(ctx.orm.em.fork(), credential);
  if (!key) throw unauthenticated('invalid or revoked API key');
  return { driveId: key.driveId, identityId: null, scope: 'full', kind: 'api_key', credentialId: key.id };
};

export function unauthenticated(message: string) {
  return new ApiError(401, 'UNAUTHENTICATED', message, {}, { 'WWW-Authenticate': 'Bearer' });
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
  const verifiers = [apiKeyVerifier, ...extraVerifiers];
  return async (req, _res, next) => {
    try {
      const header = req.get('authorization') ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) throw unauthenticated('missing bearer credential');
      let auth: AuthContext | undefined;
      for (const verify of verifiers) {
        auth = await verify(ctx, match[1]);
        if (auth) break;
      }
      if (!auth) throw unauthenticated('unrecognised bearer credential');
      const drive = opts.allowDeletedDrive ? await findDrive(ctx.orm.em.fork(), auth.driveId) : await findLiveDrive(ctx.orm.em.fork(), auth.driveId);
      if (!drive) throw unauthenticated('drive is deleted or gone');
      req.auth = auth;
      next();
    } catch (err) {
      next(err);
    }
  };
}
