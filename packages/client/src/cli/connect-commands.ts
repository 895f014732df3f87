import { InvalidArgumentError, type Command } from 'commander';
import { ok } from '../client.js';
import { globals } from './command-kit.js';
import { readConfig } from './config.js';
import { printJson } from './output.js';
import { driveClient, serverUrl } from './session.js';

/**
 * `agent-drive mcp`: a ready MCP connection for a client (Claude Code, Cursor, VS Code, any JSON config). By default
 * it uses OAuth sign-in: no secret is printed, the client opens the browser once. With --api-key it mints a key for
 * the client (the drive must be claimed) and puts it in the header, for clients that cannot sign in; --memory-prefix
 * names the drive folder that key's memory tool keeps `/memories` in.
 * `agent-drive token`: the current bearer, on stdout alone, for scripts (`curl -H "Authorization: Bearer $(…)"`).
 */
const CLIENTS = ['claude-code', 'cursor', 'vscode', 'json'] as const;
type McpClientKind = (typeof CLIENTS)[number];
const NAME = 'agent-drive';

const clientKind = (value: string): McpClientKind => {
  if (!(CLIENTS as readonly string[]).includes(value)) throw new InvalidArgumentError(`one of ${CLIENTS.join(', ')}`);
  return value as McpClientKind;
};

/** The connection block each client reads; `headers` only when a key is used. */
export function mcpConnection(kind: McpClientKind, url: string, apiKey?: string): string {
  const headers = apiKey ? { Authorization: `Bearer ${apiKey}` } : undefined;
  if (kind === 'claude-code')
    return `claude mcp add --transport http ${NAME} ${url}${apiKey ? ` --header "Authorization: Bearer ${apiKey}"` : ''}`;
  if (kind === 'vscode')
    return JSON.stringify({ servers: { [NAME]: { type: 'http', url, ...(headers ? { headers } : {}) } } }, null, 2);
  // Cursor, Claude Desktop's developer config and most JSON-configured clients read `mcpServers`.
  return JSON.stringify({ mcpServers: { [NAME]: { url, ...(headers ? { headers } : {}) } } }, null, 2);
}

interface McpOptions {
  client: McpClientKind;
  apiKey?: boolean;
  readOnly?: boolean;
  memoryPrefix?: string;
}

export function addConnectCommands(program: Command): void {
  program
    .command('mcp')
    .description('print a ready MCP connection for an agent client (OAuth sign-in by default; no secret shown)')
    .option('--client <kind>', `claude-code, cursor, vscode or json (default claude-code)`, clientKind, 'claude-code')
    .option('--api-key', 'mint an API key for the client and put it in the connection (claimed drives only)')
    .option('--read-only', 'with --api-key: the key only reads, lists, searches and finds')
    .option('--memory-prefix <folder>', "with --api-key: the drive folder the memory tool's /memories maps to")
    .action(async (opts: McpOptions, cmd: Command) => {
      const g = globals(cmd);
      const config = readConfig();
      const url = `${serverUrl(g, config)}/mcp`;
      let key: string | undefined;
      if (opts.apiKey) {
        const body = {
          name: `mcp ${opts.client}`,
          read_only: Boolean(opts.readOnly),
          memory_prefix: opts.memoryPrefix,
        };
        key = (await ok(driveClient(g).api.POST('/v0/api-keys', { body }))).api_key;
      }
      const connection = mcpConnection(opts.client, url, key);
      if (g.json) return printJson({ client: opts.client, url, auth: key ? 'api_key' : 'oauth', connection });
      process.stdout.write(connection + '\n');
      process.stderr.write(
        key
          ? 'the API key above is shown once; revoke it on the dashboard when the client is gone\n'
          : 'the client opens a browser to sign in the first time (the drive must be claimed by that account)\n',
      );
    });

  program
    .command('token')
    .description('print the current bearer credential (API key or a fresh 15-minute access token) on stdout only')
    .action(async (_opts: object, cmd: Command) => {
      const g = globals(cmd);
      const client = driveClient(g);
      const header = await client.tokens!.authorization();
      process.stdout.write(header.replace(/^Bearer /, '') + '\n');
    });
}
