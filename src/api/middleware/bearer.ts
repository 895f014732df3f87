import type { RequestHandler } from 'express';
import type { AppContext } from '../../platform/context.js';
import { authenticate, unauthenticated, type CredentialKind } from '../../identity/authenticate.js';

/** The credentials /v0 accepts (spec 5.1): API keys and access tokens, never assertions or MCP-only tokens. */
export const REST_CREDENTIALS: readonly CredentialKind[] = ['api_key', 'access_token'];

/**
 * Authenticates a request's `Authorization: Bearer` credential through the one authentication rule
 * (src/identity/authenticate.ts) and records who is calling on `req.auth`.
 */
export function bearerAuth(
  ctx: AppContext,
  opts: { kinds?: readonly CredentialKind[]; allowDeletedDrive?: boolean } = {},
): RequestHandler {
  const kinds = opts.kinds ?? REST_CREDENTIALS;
  return async (req, _res, next) => {
    try {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
      if (!match) throw unauthenticated('missing bearer credential');
      req.auth = await authenticate(ctx, match[1], { kinds, allowDeletedDrive: opts.allowDeletedDrive });
      next();
    } catch (err) {
      next(err);
    }
  };
}
