import type { Request } from 'express';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../lib/errors.js';
import type { Authenticated } from '../../identity/authenticate.js';
import type { RequestContext } from '../../platform/request-context.js';
import { actorOf } from './headers.js';

/**
 * Who is calling. Set only by the bearer middleware from the credential itself; tenant
 * context never comes from headers such as X-Drive-Actor.
 */
export type AuthContext = Authenticated;

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
