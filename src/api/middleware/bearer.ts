import type { RequestHandler } from 'express';
import type { AppContext } from '../../platform/context.js';
import { authenticate, unauthenticated, type CredentialKind } from '../../identity/authenticate.js';
import { writeLimitsOf } from '../../platform/rate-limits.js';
import { isChargedWrite } from './rate-limit.js';

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
  const limits = writeLimitsOf(ctx);
  return async (req, _res, next) => {
    try {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
      if (!match) throw unauthenticated('missing bearer credential');
      // writeBudget follows on every REST route: a write's charge can ride on the credential's lookup.
      const chargeWrite = isChargedWrite(req.method, req.originalUrl.split('?')[0]) ? limits : undefined;
      req.auth = await authenticate(ctx, match[1], { kinds, allowDeletedDrive: opts.allowDeletedDrive, chargeWrite });
      next();
    } catch (err) {
      next(err);
    }
  };
}
