import type { AppContext } from '../platform/context.js';
import type { Principal, RequestContext } from '../platform/request-context.js';
import { ownedDriveOf } from '../drives/person-drives.js';

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

/**
 * A signed-in person's principal for a page of `wanted` (issue 55: the session is the person, who may own several
 * drives): that drive when they own it, else their oldest drive (their grants reach the others through the one rule,
 * src/access/authorize.ts); undefined when they own no drive. `owns` says whether `wanted` is theirs.
 */
export async function personPrincipal(
  app: AppContext,
  userId: string,
  wanted: string | null | undefined,
): Promise<{ principal: Principal; owns: boolean } | undefined> {
  const owned = wanted ? await ownedDriveOf(app, userId, wanted) : undefined;
  const driveId = owned ?? (await ownedDriveOf(app, userId, null));
  return driveId ? { principal: webSessionPrincipal(driveId, userId), owns: !!owned } : undefined;
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
