import type { Request, Response } from 'express';
import type { Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AppContext } from '../platform/context.js';

/**
 * JSON-RPC where the MCP specification puts it: malformed JSON is -32700, a message that is not JSON-RPC -32600,
 * params that fail the method's schema -32602 with a readable message (not a zod dump, not -32603), and no
 * "MCP error -32602:" prefix inside a message. Also the Origin check of the Streamable HTTP transport.
 */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

/** An error the SDK sends as `{code, message}` as it stands (McpError would prefix its message with the code). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

type Issue = { path: PropertyKey[]; message: string };
const readable = (issues: Issue[]) =>
  issues
    .slice(0, 5)
    .map((i) => {
      const at = i.path.map(String).join('.');
      return `${at ? `"${at}"` : 'params'}: ${i.message.replace(/^Invalid input: /, '')}`;
    })
    .join('; ');

/** Params of each method this server answers, checked here so a failure reads as the field and the problem. */
const paginated = z.looseObject({ cursor: z.string().max(2048).optional() });
const PARAMS = {
  'tools/list': paginated,
  'tools/call': z.looseObject({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }),
  'resources/list': paginated,
  'resources/templates/list': paginated,
  'resources/read': z.looseObject({ uri: z.string().min(1).max(2048) }),
} as const;
export type Method = keyof typeof PARAMS;
export type Handlers = {
  [M in Method]?: (params: z.output<(typeof PARAMS)[M]>) => unknown;
};

/**
 * Installs this service's handlers on the SDK's Server with our own params check: the SDK's would answer a failure
 * with -32603 and a raw schema message. Errors with a numeric code (RpcError) reach the client as they stand.
 */
export function handleRequests(server: Server, handlers: Handlers): void {
  for (const [method, handler] of Object.entries(handlers) as [Method, (p: unknown) => unknown][]) {
    const install = server.setRequestHandler.bind(server) as unknown as (
      m: string,
      schemas: { params: z.ZodType },
      h: (params: unknown) => Promise<unknown>,
    ) => void;
    install(method, { params: z.unknown() }, async (params) => {
      const parsed = PARAMS[method].safeParse(params ?? {});
      if (!parsed.success)
        throw new RpcError(INVALID_PARAMS, `Invalid params for ${method}: ${readable(parsed.error.issues)}`);
      return handler(parsed.data);
    });
  }
}

const rpcError = (res: Response, status: number, code: number, message: string, id: unknown = null) =>
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id });

const isId = (v: unknown) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** What is wrong with one message, if anything: [code, message, id to answer with]. */
function problemOf(m: unknown): [number, string, unknown] | null {
  if (typeof m !== 'object' || m === null || Array.isArray(m))
    return [INVALID_REQUEST, 'Invalid Request: a JSON-RPC message is an object', null];
  const msg = m as Record<string, unknown>;
  const id = isId(msg.id) ? msg.id : null;
  if (msg.jsonrpc !== '2.0') return [INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', id];
  if ('id' in msg && !isId(msg.id)) return [INVALID_REQUEST, 'Invalid Request: "id" must be a string or number', null];
  if ('method' in msg) {
    if (typeof msg.method !== 'string' || !msg.method)
      return [INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string', id];
    if ('params' in msg && (typeof msg.params !== 'object' || msg.params === null || Array.isArray(msg.params)))
      return [INVALID_PARAMS, `Invalid params for ${msg.method}: "params" must be an object`, id];
    return null;
  }
  if (id !== null && ('result' in msg || 'error' in msg)) return null;
  return [
    INVALID_REQUEST,
    'Invalid Request: a message needs a "method" (request) or a "result"/"error" (response)',
    id,
  ];
}

/**
 * Reads the POST body as JSON-RPC (a message or a batch) and answers what is not: 400 with -32700 for bytes that are
 * not JSON, -32600/-32602 for JSON that is not a well-formed message. Returns the parsed body, or undefined when it
 * has answered.
 */
export function parsedJsonRpc(req: Request, res: Response): unknown {
  const raw: unknown = req.body;
  const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : '';
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    rpcError(res, 400, PARSE_ERROR, `Parse error: ${(err as Error).message}`);
    return undefined;
  }
  const messages = Array.isArray(body) ? body : [body];
  if (!messages.length) {
    rpcError(res, 400, INVALID_REQUEST, 'Invalid Request: empty batch');
    return undefined;
  }
  for (const m of messages) {
    const problem = problemOf(m);
    if (problem) {
      rpcError(res, 400, ...problem);
      return undefined;
    }
  }
  // The SDK checks a few methods' params itself before any handler and answers with a schema dump: ours go first.
  for (const m of messages as { id?: unknown; method?: string; params?: unknown }[]) {
    const schema = m.method && m.id !== undefined ? PARAMS[m.method as Method] : undefined;
    const parsed = schema?.safeParse(m.params ?? {});
    if (parsed && !parsed.success) {
      rpcError(res, 200, INVALID_PARAMS, `Invalid params for ${m.method}: ${readable(parsed.error.issues)}`, m.id);
      return undefined;
    }
  }
  return body;
}

/** A body over MCP_REQUEST_MAX_BYTES, in the protocol's shape. */
export const tooLarge = (res: Response, max: number) =>
  rpcError(res, 413, -32000, `Request body over ${max} bytes; upload large files with upload_url`);

/** The origins a browser may call /mcp from: the service's own (API and web) and MCP_ALLOWED_ORIGINS. */
export function allowedOrigins(app: AppContext): Set<string> {
  const { baseUrl, webUrl } = app.config.http;
  return new Set([new URL(baseUrl).origin, new URL(webUrl).origin, ...app.config.mcp.allowedOrigins]);
}

/**
 * DNS rebinding guard (Streamable HTTP transport, "Security Warning"): a request carrying an Origin that is not one of
 * ours gets 403; a request without one (every non-browser client) is served. Answers and returns false when refused.
 */
export function originAllowed(app: AppContext, req: Request, res: Response): boolean {
  const origin = req.get('origin');
  if (origin === undefined || allowedOrigins(app).has(origin)) return true;
  rpcError(res, 403, -32000, `Forbidden: Origin ${origin} is not allowed to call this MCP endpoint`);
  return false;
}
