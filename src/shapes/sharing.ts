import type { Config } from '../lib/config.js';
import { ROLE_CAPABILITIES } from '../access/authorize.js';
import type { GrantRow } from '../access/grant-records.js';
import type { ShareRow } from '../sharing/shares.js';
import { iso } from '../lib/time.js';

/** Public shapes of grants and share links (REFERENCE §2.8 GrantOut, ShareOut, ShareMintOut). */
const resourceOf = (r: { art_id: string | null; fld_id: string | null }) =>
  r.art_id
    ? { resource_type: 'artifact' as const, resource_id: r.art_id }
    : { resource_type: 'folder' as const, resource_id: r.fld_id! };

export function grantOut(g: GrantRow) {
  const caps = ROLE_CAPABILITIES[g.role];
  return {
    id: g.id,
    grn_id: g.id,
    drive_id: g.drive_id,
    ...resourceOf(g),
    principal_type: g.principal_type,
    principal_id: g.principal_id,
    principal_email: g.principal_email,
    role: g.role,
    can_share: caps.includes('can_share'),
    can_manage: caps.includes('can_manage'),
    granted_by_type: g.granted_by_type,
    granted_by_id: g.granted_by_id,
    on_behalf_of: g.on_behalf_of,
    created_at: iso(g.created_at)!,
    updated_at: iso(g.updated_at)!,
    expires_at: iso(g.expires_at),
    revoked_at: iso(g.revoked_at),
  };
}

export function shareOut(s: ShareRow) {
  return {
    id: s.id,
    shr_id: s.id,
    drive_id: s.drive_id,
    ...resourceOf(s),
    role: s.role,
    audience: 'anyone_with_link' as const,
    has_password: s.password_hash !== null,
    label: s.label,
    created_by_type: s.created_by_type,
    created_at: iso(s.created_at)!,
    expires_at: iso(s.expires_at),
    rotated_at: iso(s.rotated_at),
    revoked_at: iso(s.revoked_at),
    last_accessed_at: iso(s.last_accessed_at),
    access_count: Number(s.access_count),
  };
}

/** The link's web address (the viewer's redemption page). */
export const shareUrl = (config: Config, key: string) => `${config.http.webUrl}/s/${key}`;

export function shareMintOut(config: Config, m: { share: ShareRow; key: string }) {
  return { ...shareOut(m.share), share_key: m.key, url: shareUrl(config, m.key) };
}
