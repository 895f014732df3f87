import type { AppContext } from '../platform/context.js';
import { hitThrottle } from '../platform/rate-limits.js';
import { OAuthError } from './oauth-error.js';

/**
 * What every MCP OAuth client is held to, registered (RFC 7591) or published in a client ID metadata document: which
 * redirect URIs are acceptable and whether a requested one is registered, and the per-IP limit on registrations.
 */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
export const MAX_REDIRECT_URIS = 10;

/** A host name of DNS labels (or an IPv4 address): what a CSP source can name exactly. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
/** Schemes that are no app's own (RFC 8252 7.1 private-use schemes name an app; these name the web or the machine). */
const NOT_PRIVATE_USE = [
  'javascript:',
  'data:',
  'file:',
  'vbscript:',
  'blob:',
  'about:',
  'filesystem:',
  'ftp:',
  'ws:',
  'wss:',
];

/**
 * https to a host name, http only to a loopback host (native clients, RFC 8252 7.3), or an app's private-use scheme
 * (7.1) whose host, if it has one, is a host name too; never fragments or credentials (issue 54, finding 9: an odd
 * host made the consent page's CSP allow any).
 */
export function redirectUriAllowed(uri: string): boolean {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return false;
  }
  if (u.hash || u.username || u.password || uri.length > 2000) return false;
  if (u.protocol === 'https:') return HOST_NAME.test(u.hostname);
  if (u.protocol === 'http:') return LOOPBACK_HOSTS.includes(u.hostname);
  return (
    /^[a-z][a-z0-9+.-]*:$/.test(u.protocol) &&
    !NOT_PRIVATE_USE.includes(u.protocol) &&
    (u.host === '' || HOST_NAME.test(u.hostname))
  );
}

/** A client's list of redirect URIs: 1 to 10 acceptable ones. */
export const redirectUrisAllowed = (uris: unknown): uris is string[] =>
  Array.isArray(uris) &&
  uris.length > 0 &&
  uris.length <= MAX_REDIRECT_URIS &&
  uris.every((u) => typeof u === 'string' && redirectUriAllowed(u));

/**
 * Exact match, except that an http loopback redirect URI matches on any port (RFC 8252 7.3, OAuth 2.1): a native
 * client listens on whatever port is free, and a published metadata document cannot know it.
 */
export function redirectUriRegistered(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const portless = (uri: string) => {
    try {
      const u = new URL(uri);
      if (u.protocol !== 'http:' || !LOOPBACK_HOSTS.includes(u.hostname)) return undefined;
      u.port = '';
      return u.href;
    } catch {
      return undefined;
    }
  };
  const wanted = portless(requested);
  return wanted !== undefined && registered.some((r) => portless(r) === wanted);
}

/**
 * Counts a registration (or a fetched metadata document) from `clientIp` on REGISTRATIONS_PER_IP_PER_HOUR: anyone may
 * register, unauthenticated. Over the limit, 429 `rate_limited` with Retry-After.
 */
export async function countRegistration(app: AppContext, clientIp: string): Promise<void> {
  const limit = await hitThrottle(
    app.orm.em.fork(),
    'oauth_register',
    clientIp,
    app.config.limits.registrationsPerIpPerHour,
  );
  if (!limit.allowed)
    throw new OAuthError(
      'rate_limited',
      `too many client registrations from this address; retry after ${limit.retryAfterS} s`,
      429,
      limit.retryAfterS,
    );
}
