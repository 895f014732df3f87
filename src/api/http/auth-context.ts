import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import type { CredentialState } from '../../identity/credential-state.js';
import type { Principal, RequestContext } from '../../request-context.js';
import { actorOf } from './headers.js';

/**
 * Who is calling. Set only by the bearer middleware from the credential itself; tenant
 * context never comes from headers such as X-Drive-Actor.
 */
export interface AuthContext extends Principal {
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

/**
 * The request context every domain operation takes, built from the authenticated request.
 * X-Drive-Actor is read (and checked) only on the mutating methods the spec gives it to.
 */
export function requestContextOf(app: AppContext, req: Request): RequestContext {
  const auth = authOf(req);
  const actor = req.method === 'GET' || req.method === 'HEAD' ? null : actorOf(req);
  return { app, driveId: auth.driveId, principal: auth, actor, requestId: String(req.id ?? '') };
}
