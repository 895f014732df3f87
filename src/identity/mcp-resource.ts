import type { AppContext } from '../platform/context.js';

/** The MCP endpoint as a protected resource (RFC 9728, RFC 8707): its URL as a client reached it. */

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The base URL as a request reached it: PUBLIC_BASE_URL, or another loopback spelling of it (same scheme and port:
 * 127.0.0.1 for localhost and back), so a client that connected to http://127.0.0.1:8080/mcp is told that resource
 * and not one it would refuse as foreign. Any other Host is ignored (the configured URL is answered).
 */
export function baseUrlAsReached(app: AppContext, host: string | undefined): string {
  const configured = app.config.http.baseUrl;
  const base = new URL(configured);
  if (!host || !LOOPBACK.includes(base.hostname)) return configured;
  let reached: URL;
  try {
    reached = new URL(`${base.protocol}//${host}`);
  } catch {
    return configured;
  }
  if (!LOOPBACK.includes(reached.hostname) || reached.port !== base.port || reached.host !== host) return configured;
  return `${base.protocol}//${reached.host}${base.pathname.replace(/\/$/, '')}`;
}

/** The resource indicators (RFC 8707) that name this service's MCP endpoint, in any spelling it answers to. */
export function isOurResource(app: AppContext, resource: string): boolean {
  let u: URL;
  try {
    u = new URL(resource);
  } catch {
    return false;
  }
  const base = baseUrlAsReached(app, u.host);
  return [`${base}/mcp`, `${base}/mcp/`, base, `${base}/`].includes(resource);
}
