import type { IssuedToken, Registration } from '../identity/identities.js';
import type { Config } from '../lib/config.js';

/** POST /agent/identity (spec 4.10): the assertion, the claim token (shown once) and where to claim. */
export function registrationOut(config: Config, r: Registration) {
  return {
    identity_assertion: r.assertion.token,
    claim_token: r.claimToken,
    ...(r.anonymous
      ? {
          claim_metadata: {
            claim_endpoint: `${config.http.baseUrl}/agent/identity/claim`,
            supported_email_hints: true,
          },
        }
      : {}),
    drive_id: r.driveId,
    agent_identity_id: r.identityId,
    scope: r.assertion.scope,
    expires_at: r.assertion.expiresAt.toISOString(),
  };
}

/** The RFC 6749 token response of the jwt-bearer exchange. */
export const accessTokenOut = (t: IssuedToken) => ({
  access_token: t.token,
  token_type: 'Bearer' as const,
  expires_in: t.lifetimeS,
  // Space-separated (RFC 6749 3.3): the claim state, and `drive:read` when the token was narrowed to reads.
  scope: t.readOnly ? (`${t.scope} drive:read` as const) : t.scope,
});

/** The claim grant once approved: a fresh access token and the rotated 90-day assertion (spec 4.10). */
export const claimGrantOut = (g: { access: IssuedToken; assertion: IssuedToken }) => ({
  ...accessTokenOut(g.access),
  identity_assertion: g.assertion.token,
  identity_assertion_expires_at: g.assertion.expiresAt.toISOString(),
});
