import type { IncomingMessage } from 'node:http';
import express, { Router, type Request, type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { authenticate, type Authenticated, type CredentialKind } from '../identity/authenticate.js';
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
import { registerWriteTools } from './tools-write.js';
import { registerWikiTools } from './tools-wiki.js';
import type { ToolEnv } from './tool-kit.js';

/**
 * {base_url}/mcp over Streamable HTTP with the official SDK, stateless: every POST gets a fresh
 * McpServer and transport bound to the caller's drive, so any API process serves any request and
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

export const protectedResourceMetadataUrl = (app: AppContext) =>
  `${app.config.http.baseUrl}/.well-known/oauth-protected-resource/mcp`;

/** 401 for anything but a live credential MCP accepts, with the RFC 9728 pointer for OAuth clients. */
function unauthorized(app: AppContext, res: Response, detail?: string) {
  res.setHeader('WWW-Authenticate', `Bearer resource_metadata="${protectedResourceMetadataUrl(app)}"`);
  res.status(401).json({
    detail: {
      error: {
        code: 'UNAUTHENTICATED',
        message: 'Invalid or revoked agent credential',
        ...(detail ? { reason: detail } : {}),
      },
    },
  });
}

/** Builds the tool set for one authenticated request. */
export function createMcpServer(env: ToolEnv): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions:
      'Agent Artifact Drive: a versioned file drive. Call overview first; list/search/find/grep to locate; read to open (paged); ' +
      'upload/edit to write; upload_url for large or binary files; compile (then get_compile) builds a PDF from a LaTeX or Typst folder. Errors come back as isError results whose text is {"error":{"code",...}}.',
  });
  // An argument that fails the input schema is answered by the SDK as a tool error; give it the REST code too.
  const internals = server as unknown as { createToolError: (message: string) => unknown };
  internals.createToolError = (message: string) => ({
    isError: true,
    content: [{ type: 'text', text: JSON.stringify({ error: { code: 'VALIDATION_ERROR', status: 422, message } }) }],
  });
  registerBrowseTools(server, env);
  registerChangesTools(server, env);
  registerReadTools(server, env);
  registerSearchTools(server, env);
  registerWriteTools(server, env);
  registerEditTools(server, env);
  registerSharingTools(server, env);
  registerCompileTools(server, env);
  registerWikiTools(server, env);
  return server;
}

export function mcpRouter(app: AppContext, search: SearchService): Router {
  const router = Router();
  const json = express.json({ limit: app.config.mcp.requestMaxBytes });

  const handle = async (req: Request, res: Response) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    if (!match) return unauthorized(app, res, 'missing bearer credential');
    let auth: Authenticated;
    try {
      auth = await authenticate(app, match[1], { kinds: MCP_CREDENTIALS });
    } catch (err) {
      if (err instanceof AppError && err.status === 401) return unauthorized(app, res, err.message);
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
    await transport.handleRequest(req as unknown as IncomingMessage, res, req.body);
  };

  router.all('/mcp', json, (req, res, next) => {
    handle(req, res).catch(next);
  });
  return router;
}
