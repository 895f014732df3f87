import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../lib/errors.js';
import { authenticate } from '../../identity/authenticate.js';
import { anonymousPrincipal, personPrincipal, webRequestContext } from '../../identity/web-principal.js';
import type { RequestContext } from '../../platform/request-context.js';
import { readSession } from '../session.js';

/**
 * Who is looking at a viewer page: the bearer credential if one is sent (API key or access token,
 * as on /v0), else the signed-in person (acting as the drive the URL names when they own it, else as the drive
 * they opened last: src/identity/web-principal.ts), else an anonymous visitor. The page then
 * asks the domain, which asks the one authorization rule; an invalid bearer is treated as no
 * credential (the visitor still sees public artifacts, and nothing tells it what exists).
 */
export async function visitorContext(ctx: AppContext, req: Request): Promise<RequestContext> {
  const requestId = req.id ? String(req.id) : randomUUID();
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ')) {
    try {
      const principal = await authenticate(ctx, header.slice(7).trim(), { kinds: ['api_key', 'access_token'] });
      return webRequestContext(ctx, principal, requestId);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
    }
  }
  const session = sessionOrNone(ctx, req);
  if (session?.uid) {
    const urlDrive = typeof req.params.driveId === 'string' ? req.params.driveId : undefined;
    const person = await personPrincipal(ctx, session.uid, urlDrive ?? session.drv);
    if (person) return webRequestContext(ctx, person.principal, requestId);
  }
  return webRequestContext(ctx, anonymousPrincipal(), requestId);
}

function sessionOrNone(ctx: AppContext, req: Request) {
  try {
    return readSession(req);
  } catch {
    return undefined; // sign-in not configured: nobody is signed in
  }
}
