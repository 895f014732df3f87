import type { AppContext } from './context.js';

/**
 * Who is calling, as every door (REST, MCP, web) establishes it from the credential itself; never
 * from headers such as X-Drive-Actor.
 */
export interface Principal {
  /** The drive the credential belongs to. */
  driveId: string;
  /** The agent identity behind an access token or assertion; null for API keys. */
  identityId: string | null;
  scope: 'pre_claim' | 'full';
  /**
   * mcp_oauth: an MCP-only OAuth access token (adat_…), refused on /v0 (spec 5.2). web_session: a
   * signed-in browser (spec 5.11); anonymous: a viewer visitor with no credential, who holds no
   * drive (`driveId` is empty) and reaches only what `anyone` grants allow (src/identity/web-principal.ts).
   * system: the service itself acting for a drive (a compile job writing its outputs).
   */
  kind: 'api_key' | 'access_token' | 'identity_assertion' | 'mcp_oauth' | 'web_session' | 'anonymous' | 'system';
  /**
   * Stable id of the credential whose budget is charged: the API key id, or for tokens the agent
   * identity id (every access token of one identity shares one budget).
   */
  credentialId: string;
  /**
   * The credential may read but never write (scope `drive:read`, a read-only API key): every door refuses its writes
   * through `refuseReadOnlyWrite` (src/access/authorize.ts).
   */
  readOnly: boolean;
  /** What the person called the credential: an API key's label, an OAuth app's name (runs are named by it). */
  credentialName?: string | null;
  /**
   * The drive folder the memory tool's `/memories` maps to (an API key's `memory_prefix`); absent or null: the default
   * `memories` (every other credential, docs/decisions/memory-tool.md).
   */
  memoryPrefix?: string | null;
}

/**
 * What every domain operation receives besides its typed input: the process's shared services,
 * the drive it acts on, who asks, the caller-supplied attribution name and the request id (logs).
 */
export interface RequestContext {
  app: AppContext;
  driveId: string;
  principal: Principal;
  /** X-Drive-Actor: attribution only, never used for authorization. */
  actor: string | null;
  requestId: string;
}

/**
 * The context of work the service does for a drive on its own (a compile job writing its PDF): no
 * credential, the drive's own authority, and `actor` as the attribution name of its events.
 */
export function systemRequestContext(app: AppContext, driveId: string, actor: string, requestId = ''): RequestContext {
  return {
    app,
    driveId,
    principal: {
      driveId,
      identityId: null,
      scope: 'full',
      kind: 'system',
      credentialId: `system:${actor}`,
      readOnly: false,
    },
    actor,
    requestId,
  };
}
