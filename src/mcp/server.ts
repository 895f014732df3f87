import type { IncomingMessage } from 'node:http';
import express, { Router, type Request, type Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
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
import { ToolSet, type ToolEnv } from './tool-kit.js';
import { guardRequestHandlers, originAllowed, parsedJsonRpc, tooLarge } from './protocol.js';

/**
 * {base_url}/mcp over Streamable HTTP with the official SDK, stateless: every POST gets a fresh
 * Server and transport bound to the caller's drive, so any API process serves any request and
 * nothing lives in memory between requests. GET (standalone SSE stream) and DELETE (session end)
 * have no meaning without sessions and answer 405, as the transport specification allows.
 */
export const MCP_CREDENTIALS: readonly CredentialKind[] = [
  'api_key',
  'identity_assertion',
  'access_token',
  'mcp_oauth',
];
export const MCP_SERVER_INFO = { name: 'agent-artifact-drive', version: '0.0.1' };

/** Where the protected-resource metadata is, in the loopback spelling of the host the request used. */
export const protectedResourceMetadataUrl = (app: AppContext, host?: string) =>
  `${baseUrlAsReached(app, host)}/.well-known/oauth-protected-resource/mcp`;

/**
 * 401 for anything but a live credential MCP accepts, with the RFC 9728 pointer for OAuth clients; a credential that
 * was sent but is not valid adds RFC 6750's error="invalid_token" (a missing one carries no error code, RFC 6750 3.1).
 */
function unauthorized(app: AppContext, req: Request, res: Response, detail: string, presented: boolean) {
  const invalid = presented ? `, error="invalid_token", error_description="${detail.replace(/["\\]/g, '')}"` : '';
  const metadata = protectedResourceMetadataUrl(app, req.get('host'));
  res.setHeader('WWW-Authenticate', `Bearer resource_metadata="${metadata}"${invalid}`);
  res.status(401).json({
    detail: {
      error: {
        code: 'UNAUTHENTICATED',
        message: 'Invalid or revoked agent credential',
        reason: detail,
      },
    },
  });
}

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
  return tools;
}

/**
 * The MCP server of one request: the SDK's low-level Server (initialize, ping, the transport) with tools/list and
 * tools/call answered from the ToolSet, so unknown tools and arguments are this service's to judge. Capabilities say
 * what is true: tools, and no listChanged (the list never changes while a client is connected).
 */
export function createMcpServer(env: ToolEnv): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      'Agent Artifact Drive: a versioned file drive. Call overview first; list/search/find/grep to locate; read to open (paged); ' +
      'upload/edit to write; delete moves to the trash and restore brings back; compile builds a PDF from a LaTeX or Typst folder. ' +
      'Tool errors are isError results whose text is {"error":{"code","message",...}}.',
  });
  const tools = toolSetFor(env);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.list() }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    tools.call(request.params.name, request.params.arguments),
  );
  guardRequestHandlers(server);
  return server;
}

export function mcpRouter(app: AppContext, search: SearchService): Router {
  const router = Router();
  const maxBytes = app.config.mcp.requestMaxBytes;
  // The raw bytes: JSON parse errors are the protocol's to answer (-32700), not the REST envelope's.
  const body = express.raw({ type: () => true, limit: maxBytes });

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
    const server = createMcpServer({
      app,
      auth,
      search,
      actorHeader: req.get('x-drive-actor'),
      requestId: String(req.id ?? ''),
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // Express's Request carries this service's own `auth` field; the transport reads none of it.
    await transport.handleRequest(req as unknown as IncomingMessage, res, message);
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
