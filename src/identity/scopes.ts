import { OAuthError } from './oauth-error.js';

/**
 * The OAuth scopes a client may ask for (docs/decisions/identity.md, "Read-only credentials"): `drive` reads and writes
 * the drive, `drive:read` only reads it (lists, searches, finds). Asked at /oauth2/authorize (MCP OAuth) and at the
 * jwt-bearer exchange (an agent narrowing its own access token). `pre_claim` and `full` are not asked for: they say
 * whether the drive was claimed.
 */
export const DRIVE_SCOPE = 'drive';
export const DRIVE_READ_SCOPE = 'drive:read';
export const DRIVE_SCOPES = [DRIVE_SCOPE, DRIVE_READ_SCOPE] as const;

/**
 * A `scope` parameter (space-separated) as the access it asks for: `undefined` when it names no drive scope (the
 * caller's default), read-only when it names `drive:read` and not `drive`. Any other scope is `invalid_scope`.
 */
export function requestedReadOnly(scope: string | undefined): boolean | undefined {
  const asked = (scope ?? '').split(' ').filter(Boolean);
  const unknown = asked.filter((s) => !(DRIVE_SCOPES as readonly string[]).includes(s));
  if (unknown.length)
    throw new OAuthError(
      'invalid_scope',
      `unknown scope ${unknown.join(' ')}; the scopes are ${DRIVE_SCOPES.join(', ')}`,
    );
  if (!asked.length) return undefined;
  return !asked.includes(DRIVE_SCOPE);
}

/** The drive scope a grant or token carries. */
export const driveScopeOf = (readOnly: boolean) => (readOnly ? DRIVE_READ_SCOPE : DRIVE_SCOPE);
