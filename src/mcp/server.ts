import type { IncomingMessage } from 'node:http';
import { runFor, withRun } from '../platform/run-scope.js';
import { registerRunTools } from './tools-runs.js';
import { registerLeaseTools } from './tools-lease.js';
import express, { Router, type Request, type Response } from 'express';
import {
  createMcpHandler,
  isLegacyRequest,
  Server,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { authenticate, type Authenticated, type CredentialKind } from '../identity/authenticate.js';
import { baseUrlAsReached } from '../identity/mcp-resource.js';
import { recordMcpActivity } from '../drives/drive-lifecycle.js';
import type { SearchService } from '../search/service.js';
import { budgetStatusOf } from '../platform/rate-limits.js';
import { registerBrowseTools } from './tools-browse.js';
import { registerChangesTools } from './tools-changes.js';
import { registerCompileTools } from './tools-compile.js';
import { registerEditTools } from './tools-edit.js';
import { registerReadTools } from './tools-read.js';
import { registerSearchTools } from './tools-search.js';
import { registerSharingTools } from './tools-sharing.js';
import { registerMoveTools } from './tools-move.js';
import { registerWriteTools } from './tools-write.js';
import { registerWikiTools } from './tools-wiki.js';
import { registerMemoryTools } from './tools-memory.js';
import { registerPatchTools } from './tools-patch.js';
import { PROFILE_ONLY_TOOLS, profileTools } from './profiles.js';
import { ToolSet, type ToolEnv } from './tool-kit.js';
import { handleRequests, originAllowed, parsedJsonRpc, tooLarge } from './protocol.js';
import { registerResources } from './resources.js';
import { isListenRequest, serveListen } from './subscriptions.js';

/**
 * {base_url}/mcp over Streamable HTTP with the official SDK (v2), both protocol eras on one endpoint: 2026-07-28
 * (per-request envelope, server/discover, subscriptions/listen) and 2025-11-25 and older through the SDK's stateless
 * fallback (initialize per request, no session). Every request gets a fresh Server bound to the caller's drive, so any
 * API process answers any request and nothing lives in memory between requests (docs/decisions/mcp.md, "Two eras").
 */
export const MCP_CREDENTIALS: readonly CredentialKind[] = [
  'api_key',
  'identity_assertion',
  'access_token',
  'mcp_oauth',
];
export const MCP_SERVER_INFO = { name: 'agent-artifact-drive', version: '0.0.1' };
/** The newest revision served; the SDK answers 2025-11-25 (and older) clients through its stateless fallback. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** tools/list is the same for every request of one credential kind and scope: clients may keep it this long. */
const TOOL_LIST_TTL_MS = 10 * 60_000;

/** What the server tells the model; a read-only connection is told it only reads. */
const instructionsFor = (readOnly: boolean) =>
  'Agent Artifact Drive: a versioned file drive. Call overview first; list/search/find/grep to locate; read to open (paged); ' +
  (readOnly
    ? 'this connection is read-only: it cannot write, move or delete. '
    : 'upload/edit to write; delete moves to the trash and restore brings back; compile builds a PDF from a LaTeX or Typst folder. ') +
  'Files are also resources (drive:///<path>); at 2026-07-28, subscriptions/listen with drive:///<folder>/ reports changes. ' +
  'Tool errors are isError results whose text is {"error":{"code","message",...}}.';

/** Where the protected-resource metadata is, in the loopback spelling of the host the request used. */
export const protectedResourceMetadataUrl = (app: AppContext, host?: string) =>
  `${baseUrlAsReached(app, host)}/.well-known/oauth-protected-resource/mcp`;

/**
 * 401 for anything but a live credential MCP accepts, with the RFC 9728 pointer for OAuth clients; a credential that
 * was sent but is not valid adds RFC 6750's error="invalid_token" (a missing one carries no error code, RFC 6750 3.1).
 * The message says what to do next: an assertion rotated by a claim is renewed with the claim grant (spec 5.6).
 */
function unauthorized(app: AppContext, req: Request, res: Response, detail: string, presented: boolean) {
  const invalid = presented ? `, error="invalid_token", error_description="${detail.replace(/["\\]/g, '')}"` : '';
  const metadata = protectedResourceMetadataUrl(app, req.get('host'));
  res.setHeader('WWW-Authenticate', `Bearer resource_metadata="${metadata}"${invalid}`);
  res.status(401).json({
    detail: {
      error: {
        code: 'UNAUTHENTICATED',
        message: `Invalid or revoked agent credential${presented ? `. ${RECONNECT_HINT}` : ''}`,
        reason: detail,
      },
    },
  });
}

/** What an agent whose credential stopped working does (docs/decisions/mcp.md, "After a claim"). */
export const RECONNECT_HINT =
  'If this drive was claimed, its identity assertion was rotated: POST /oauth2/token with grant_type=claim and the ' +
  'stored claim_token returns the new one; or reconnect with OAuth sign-in (no secret: remove the Authorization ' +
  'header and let the client sign in) or an API key minted on the dashboard (`agent-drive mcp --api-key`).';

/** Every tool, bound to one authenticated request. */
export function toolSetFor(env: ToolEnv): ToolSet {
  const tools = new ToolSet();
  registerBrowseTools(tools, env);
  registerChangesTools(tools, env);
  registerReadTools(tools, env);
  registerSearchTools(tools, env);
  registerWriteTools(tools, env);
  registerMoveTools(tools, env);
  registerEditTools(tools, env);
  registerSharingTools(tools, env);
  registerCompileTools(tools, env);
  registerWikiTools(tools, env);
  registerRunTools(tools, env);
  registerLeaseTools(tools, env);
  registerMemoryTools(tools, env);
  registerPatchTools(tools, env);
  if (env.profile) tools.only(env.profile);
  else tools.drop(PROFILE_ONLY_TOOLS);
  return tools;
}

/**
 * The MCP server of one request: the SDK's low-level Server with tools and resources answered from this service's
 * own kit, so unknown tools and arguments are this service's to judge. Capabilities say what is true: no listChanged
 * (the lists never change while a client is connected), resource subscriptions only at 2026-07-28, where
 * subscriptions/listen carries them (the 2025 fallback is stateless: it has no stream to deliver on).
 */
export function createMcpServer(env: ToolEnv, era: McpRequestContext['era'] = 'modern'): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {}, resources: { subscribe: era === 'modern' } },
    instructions: instructionsFor(env.auth.readOnly),
    cacheHints: {
      'tools/list': { ttlMs: TOOL_LIST_TTL_MS, cacheScope: 'private' },
      'resources/templates/list': { ttlMs: TOOL_LIST_TTL_MS, cacheScope: 'public' },
    },
  });
  const tools = toolSetFor(env);
  handleRequests(server, {
    'tools/list': () => ({ tools: tools.list() }),
    'tools/call': (params) => tools.call(String(params.name), params.arguments as Record<string, unknown> | undefined),
    ...registerResources(env),
  });
  return server;
}

/** The request's ToolEnv rides in the SDK's pass-through AuthInfo, the one value it hands the factory. */
const envKey = 'agentDriveEnv';
const authInfoOf = (env: ToolEnv): AuthInfo => ({
  token: '',
  clientId: env.auth.credentialId,
  scopes: [env.auth.scope],
  extra: { [envKey]: env },
});
const envOf = (authInfo: AuthInfo | undefined): ToolEnv => {
  const env = authInfo?.extra?.[envKey] as ToolEnv | undefined;
  if (!env) throw new Error('MCP request without its environment');
  return env;
};

/**
 * 2025-era requests, stateless as before: a fresh Server on a sessionless transport answering in plain JSON (the SDK's
 * own fallback answers over SSE, which raw JSON-RPC callers and the earlier behaviour of this endpoint do not expect).
 */
async function serveLegacy(env: ToolEnv, request: globalThis.Request, message: unknown): Promise<globalThis.Response> {
  const server = createMcpServer(env, 'legacy');
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { authInfo: authInfoOf(env), parsedBody: message });
  } finally {
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  }
}

export function mcpRouter(app: AppContext, search: SearchService): Router {
  const router = Router();
  const maxBytes = app.config.mcp.requestMaxBytes;
  // The raw bytes: JSON parse errors are the protocol's to answer (-32700), not the REST envelope's.
  const body = express.raw({ type: () => true, limit: maxBytes });
  const modern = createMcpHandler(({ authInfo, era }) => createMcpServer(envOf(authInfo), era), {
    legacy: 'reject',
    maxRequestBodySize: maxBytes,
    onerror: (err) => app.logger.debug({ err: err.message }, 'mcp: request refused by the SDK'),
  });

  const handle = async (req: Request, res: Response) => {
    if (!originAllowed(app, req, res)) return;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    if (!match) return unauthorized(app, req, res, 'missing bearer credential', Boolean(req.get('authorization')));
    let auth: Authenticated;
    try {
      auth = await authenticate(app, match[1], { kinds: MCP_CREDENTIALS });
    } catch (err) {
      if (err instanceof AppError && err.status === 401) return unauthorized(app, req, res, err.message, true);
      throw err;
    }
    await recordMcpActivity(app, auth);
    const budget = budgetStatusOf(app, auth.state);
    res.setHeader('X-RateLimit-Limit', String(budget.limit));
    res.setHeader('X-RateLimit-Remaining', String(budget.remaining));
    res.setHeader('X-RateLimit-Reset', String(budget.resetS));
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return res.status(405).json({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC with POST',
        },
        id: null,
      });
    }
    const message = parsedJsonRpc(req, res);
    if (message === undefined) return;
    let profile: readonly string[] | undefined;
    try {
      profile = profileTools(req.query.tools);
    } catch (err) {
      const message = (err as Error).message;
      return res.status(400).json({ jsonrpc: '2.0', error: { code: -32602, message }, id: null });
    }
    const env: ToolEnv = {
      app,
      auth,
      search,
      actorHeader: req.get('x-drive-actor'),
      requestId: String(req.id ?? ''),
      profile,
    };
    const authInfo = authInfoOf(env);
    const node = toNodeHandler({
      fetch: async (request: globalThis.Request) => {
        if (await isLegacyRequest(request, message, { maxRequestBodySize: maxBytes }))
          return serveLegacy(env, request, message);
        if (await isListenRequest(request, message))
          return serveListen(env, message as never, request.signal, req.ip ?? 'unknown');
        return modern.fetch(request, { authInfo, parsedBody: message });
      },
    });
    // Express's Request carries this service's own `auth` field, which the adapter would forward: ours goes above.
    const run = runFor(auth, { header: req.get('x-drive-run-id'), mcpSession: req.get('mcp-session-id') });
    await withRun(run, () => node(req as unknown as IncomingMessage, res, message));
  };

  router.all('/mcp', (req, res, next) => {
    body(req, res, (err?: unknown) => {
      if ((err as { type?: string } | undefined)?.type === 'entity.too.large') return tooLarge(res, maxBytes);
      if (err) return next(err);
      handle(req, res).catch(next);
    });
  });
  return router;
}
