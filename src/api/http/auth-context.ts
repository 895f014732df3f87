import type { Request } from 'express';
import { AppError } from '../../errors.js';
import type { CredentialState } from '../../identity/credential-state.js';

/**
 * Who is calling. Set only by the bearer middleware from the credential itself; tenant
 * context never comes from headers such as X-Drive-Actor.
 */
export interface AuthContext {
  driveId: string;
  /** The agent identity behind an access token; null for API keys. */
  identityId: string | null;
  scope: 'pre_claim' | 'full';
  /** identity_assertion only on MCP (spec 5.3); /v0 refuses assertions. */
  kind: 'api_key' | 'access_token' | 'identity_assertion';
  /**
   * Stable id of the credential whose budget is charged: the API key id, or for access tokens
   * the agent identity id (every access token of one identity shares one budget).
   */
  credentialId: string;
  /** The drive's state and the credential's writes this hour, loaded once by the bearer middleware. */
  state: CredentialState;
}

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthContext;
  }
}

export function authOf(req: Request): AuthContext {
  if (!req.auth) throw new AppError('UNAUTHENTICATED', 'missing bearer credential');
  return req.auth;
}
