import type { GrantRow } from '../access/grant-records.js';
import type { RequestContext } from '../platform/request-context.js';
import { createGrant, listGrants, revokeGrant } from './grants.js';
import { resolveTarget } from './resources.js';
import { listShares, type ShareRow } from './shares.js';

/**
 * Sharing of one resource at a glance (the web pages' Share control): the people it is granted to, its live links and
 * whether it is public (an `anyone:viewer` grant without expiry, as visibility reads it). Needs can_manage, as listing
 * grants and links does.
 */
export interface SharingState {
  people: GrantRow[];
  links: ShareRow[];
  isPublic: boolean;
}

export async function sharingState(rc: RequestContext, resource: string): Promise<SharingState> {
  const [grants, links] = await Promise.all([listGrants(rc, resource), listShares(rc, resource)]);
  return {
    people: grants.filter((g) => g.principal_type !== 'anyone'),
    links,
    isPublic: grants.some((g) => g.principal_type === 'anyone' && g.expires_at === null),
  };
}

/**
 * The public switch: on, an `anyone:viewer` grant without expiry (what `X-Drive-Visibility: public` creates); off,
 * every anyone grant on the resource revoked (what `private` does). Public shows the current version only
 * (docs/decisions/sharing.md).
 */
export async function setPublic(rc: RequestContext, resource: string, on: boolean): Promise<void> {
  // A folder only paths imply has no grant yet: making it public makes its record (createGrant), private is a no-op.
  if ('impliedFolder' in (await resolveTarget(rc, resource))) {
    if (on) await createGrant(rc, { resource, principal: { type: 'anyone' }, role: 'viewer' });
    return;
  }
  const grants = await listGrants(rc, resource);
  const anyone = grants.filter((g) => g.principal_type === 'anyone');
  if (on) {
    if (anyone.some((g) => g.expires_at === null)) return;
    for (const g of anyone) await revokeGrant(rc, g.id);
    await createGrant(rc, { resource, principal: { type: 'anyone' }, role: 'viewer' });
    return;
  }
  for (const g of anyone) await revokeGrant(rc, g.id);
}
