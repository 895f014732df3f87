import type { AppContext } from '../platform/context.js';
import type { Principal, RequestContext } from '../platform/request-context.js';

/**
 * Principals of the human doors (the viewer and the owner's pages), built here so that pages never
 * invent one: a signed-in browser session acts as the drive it is signed in to (spec 5.11: the
 * owner's session sees everything its bearer would), and a visitor with no credential is nobody,
 * holding no drive, so the one authorization rule (src/access/authorize.ts) gives it only what
 * `anyone` grants (visibility public) allow.
 */
export function webSessionPrincipal(driveId: string, userId: string): Principal {
  return {
    driveId,
    identityId: null,
    scope: 'full',
    kind: 'web_session',
    credentialId: `web:${userId}`,
    readOnly: false,
  };
}

export function anonymousPrincipal(): Principal {
  return {
    driveId: '',
    identityId: null,
    scope: 'full',
    kind: 'anonymous',
    credentialId: 'anonymous',
    readOnly: false,
  };
}

/** The RequestContext of a page request, for a principal from `authenticate()` or one of the above. */
export function webRequestContext(
  app: AppContext,
  principal: Principal,
  requestId: string,
  actor: string | null = null,
): RequestContext {
  return { app, driveId: principal.driveId, principal, actor, requestId };
}
