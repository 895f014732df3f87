import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { TestApi } from '../helpers/api.js';

/** An MCP client of the official SDK, over real HTTP, with a bearer credential. */
export async function mcpClient(
  api: TestApi,
  credential: string,
  headers: Record<string, string> = {},
): Promise<McpSession> {
  const client = new Client({ name: 'drive-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${credential}`, ...headers } },
  });
  await client.connect(transport);
  return new McpSession(client);
}

/** One raw JSON-RPC `tools/list` POST to /mcp with a bearer credential, as a client without the SDK sends it. */
export const listToolsRaw = (api: TestApi, credential: string) =>
  fetch(`${api.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${credential}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

export interface ToolError {
  code: string;
  status: number;
  message: string;
  [k: string]: unknown;
}

export class McpSession {
  constructor(readonly client: Client) {}

  raw(name: string, args: Record<string, unknown> = {}) {
    return this.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  }

  /** Calls a tool that must succeed; returns its structured content. */
  async ok<T = Record<string, unknown>>(
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<T & { _text: string }> {
    const r = await this.raw(name, args);
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    const text = (r.content[0] as { text: string }).text;
    return { ...(r.structuredContent as T), _text: text };
  }

  /** Calls a tool that must fail; returns the error the tool reported. */
  async fail(name: string, args: Record<string, unknown> = {}): Promise<ToolError> {
    const r = await this.raw(name, args);
    expect(r.isError, JSON.stringify(r.content)).toBe(true);
    const text = (r.content[0] as { text: string }).text;
    return (JSON.parse(text) as { error: ToolError }).error;
  }

  close() {
    return this.client.close();
  }
}
