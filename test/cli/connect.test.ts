import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { freshConfigHome, runCli } from '../helpers/cli.js';
import { randomIp, uniqueEmail, WebClient } from '../identity/helpers.js';
import { listToolsRaw, mcpClient } from '../mcp/helpers.js';

/**
 * Staying connected after a claim (issue 36): the MCP 401 for a rotated assertion says what to do, the claim page says
 * which agents renew by themselves, `agent-drive mcp` prints a ready connection (OAuth without a secret, or a key
 * minted for the client after the claim) and `agent-drive token` prints the bearer alone.
 */
let api: TestApi;
let home: string;
let env: Record<string, string>;
const cli = (args: string[]) => runCli(args, env);

beforeAll(async () => {
  api = await startTestApi({ REGISTRATIONS_PER_IP_PER_HOUR: '100000' });
  home = freshConfigHome();
  env = { XDG_CONFIG_HOME: home, AGENT_DRIVE_URL: api.url, AGENT_DRIVE_CONFIG: '' };
});
afterAll(async () => api?.close());

const configFile = () => path.join(home, 'agent-drive', 'config.json');
const config = () => JSON.parse(readFileSync(configFile(), 'utf8'));

describe('connecting an agent', () => {
  it('prints OAuth connections with no secret, for each client kind', async () => {
    expect((await cli(['login'])).code).toBe(0);
    const claude = await cli(['mcp']);
    expect(claude.code, claude.stderr).toBe(0);
    expect(claude.stdout.trim()).toBe(`claude mcp add --transport http agent-drive ${api.url}/mcp`);
    const cursor = await cli(['mcp', '--client', 'cursor']);
    expect(JSON.parse(cursor.stdout)).toEqual({ mcpServers: { 'agent-drive': { url: `${api.url}/mcp` } } });
    const vscode = await cli(['mcp', '--client', 'vscode']);
    expect(JSON.parse(vscode.stdout)).toEqual({ servers: { 'agent-drive': { type: 'http', url: `${api.url}/mcp` } } });
    for (const out of [claude.stdout, cursor.stdout, vscode.stdout]) {
      expect(out).not.toContain(config().identity_assertion);
      expect(out).not.toContain('ad_live_');
    }
    const bad = await cli(['mcp', '--client', 'emacs']);
    expect(bad.code).toBe(2);
  });

  it('refuses to mint a key for an unclaimed drive', async () => {
    const r = await cli(['mcp', '--api-key']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('DRIVE_UNCLAIMED');
  });

  it('after the claim: the old assertion gets a 401 saying what to do; the CLI renews; a minted key connects', async () => {
    const before = config();
    const claim = JSON.parse((await cli(['--json', 'claim'])).stdout) as { user_code: string };
    const web = new WebClient(api.url, { 'x-forwarded-for': randomIp() });
    await web.signUp(uniqueEmail('connect'));
    const done = await web.decide(claim.user_code, 'approve');
    expect(done.body).toContain('Pick up new credentials by themselves');
    expect(done.body).toContain('agent-drive mcp');

    // An MCP client still configured with the pre-claim assertion.
    const res = await listToolsRaw(api, before.identity_assertion);
    expect(res.status).toBe(401);
    const message = ((await res.json()) as { detail: { error: { message: string } } }).detail.error.message;
    expect(message).toContain('Invalid or revoked agent credential');
    expect(message).toContain('grant_type=claim');
    expect(message).toContain('agent-drive mcp --api-key');

    // Once its cached access token has run out, the CLI picks up the new assertion by itself (the claim grant).
    writeFileSync(configFile(), JSON.stringify({ ...config(), access_token_expires_at: 0 }));
    const token = await cli(['token']);
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout.trim().split('\n')).toHaveLength(1);
    expect(config().identity_assertion).not.toBe(before.identity_assertion);
    const me = await fetch(`${api.url}/v0/drives/me`, { headers: { authorization: `Bearer ${token.stdout.trim()}` } });
    expect(me.status).toBe(200);

    // A key minted for the client connects over MCP.
    const minted = await cli(['--json', 'mcp', '--api-key', '--client', 'json']);
    expect(minted.code, minted.stderr).toBe(0);
    const out = JSON.parse(minted.stdout) as { auth: string; connection: string };
    expect(out.auth).toBe('api_key');
    const header = JSON.parse(out.connection).mcpServers['agent-drive'].headers.Authorization as string;
    expect(header).toMatch(/^Bearer ad_live_/);
    const session = await mcpClient(api, header.slice('Bearer '.length));
    expect((await session.ok<{ drive: { drive_id: string } }>('overview')).drive.drive_id).toBe(before.drive_id);
    await session.close();

    // --read-only mints a key whose connection lists no write tool.
    const readOnly = await cli(['--json', 'mcp', '--api-key', '--read-only', '--client', 'cursor']);
    expect(readOnly.code, readOnly.stderr).toBe(0);
    const roHeader = JSON.parse((JSON.parse(readOnly.stdout) as { connection: string }).connection).mcpServers[
      'agent-drive'
    ].headers.Authorization as string;
    const roSession = await mcpClient(api, roHeader.slice('Bearer '.length));
    const names = (await roSession.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('read');
    expect(names).not.toContain('upload');
    await roSession.close();

    // --memory-prefix mints a key whose memory tool keeps /memories in that folder.
    const mem = await cli(['--json', 'mcp', '--api-key', '--memory-prefix', 'agents/cli/mem/', '--client', 'json']);
    expect(mem.code, mem.stderr).toBe(0);
    const memHeader = JSON.parse((JSON.parse(mem.stdout) as { connection: string }).connection).mcpServers[
      'agent-drive'
    ].headers.Authorization as string;
    const created = await fetch(`${api.url}/v0/memory`, {
      method: 'POST',
      headers: { authorization: memHeader, 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'create', path: '/memories/cli.md', file_text: 'hi\n' }),
    });
    expect(created.status).toBe(200);
    const meta = await fetch(`${api.url}/v0/artifacts/agents/cli/mem/cli.md/meta`, {
      headers: { authorization: memHeader },
    });
    expect(meta.status).toBe(200);
  });
});
