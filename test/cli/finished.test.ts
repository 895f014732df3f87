import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriveClient, ok, suggestPaths } from '../../packages/client/src/index.js';
import { driveClient } from '../artifacts/client.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { freshConfigHome, runCli } from '../helpers/cli.js';
import { createTenant } from '../helpers/tenant.js';

/** Issue 39: the CLI points (option checks, whoami, not-found, network errors, sync skips, search marks, cat). */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api?.close());

const setup = async () => {
  const tenant = await createTenant(api.ctx);
  const d = await driveClient(api, tenant);
  const env = { XDG_CONFIG_HOME: freshConfigHome(), AGENT_DRIVE_URL: api.url, AGENT_DRIVE_API_KEY: tenant.apiKey };
  return { d, env };
};

describe('a CLI that feels finished', () => {
  it('option values are checked before any request, in words a user knows (exit 2)', async () => {
    const { env } = await setup();
    const bad = await runCli(['find', 'x', '--mode', 'fuzzy'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('use one of: hybrid, lexical, semantic');
    expect(bad.stderr).not.toContain('query.mode');
    expect((await runCli(['share', 'x', '--role', 'owner'], env)).code).toBe(2);
  });

  it('whoami says the claim state; not-found names the path and the way back', async () => {
    const { env } = await setup();
    const me = await runCli(['whoami'], env);
    expect(me.code, me.stderr).toBe(0);
    expect(me.stdout).toMatch(/^claimed/m);
    const missing = await runCli(['cat', 'docs/gone.md'], env);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('no live artifact at docs/gone.md');
    expect(missing.stderr).toContain('agent-drive restore docs/gone.md');
  });

  it('a refused connection names the cause', async () => {
    const { env } = await setup();
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const r = await runCli(['ls'], { ...env, AGENT_DRIVE_URL: `http://127.0.0.1:${port}` });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot reach the server (127.0.0.1:${port}): the connection was refused`);
    expect(r.stderr).not.toContain('fetch failed');
  });

  it('sync skips .git, node_modules and dotfiles, and honours .gitignore and .driveignore', async () => {
    const { d, env } = await setup();
    const dir = mkdtempSync(path.join(tmpdir(), 'sync-skip-'));
    for (const f of [
      '.git/config',
      'node_modules/x/index.js',
      '.env',
      'build/out.js',
      'notes.log',
      'keep.md',
      'sub/private.md',
    ])
      (mkdirSync(path.dirname(path.join(dir, f)), { recursive: true }), writeFileSync(path.join(dir, f), f));
    writeFileSync(path.join(dir, '.gitignore'), '# built\nbuild/\n*.log\n');
    writeFileSync(path.join(dir, '.driveignore'), '/sub/private.md\n');
    const r = await runCli(['sync', dir, 's'], env);
    expect(r.code, r.stderr).toBe(0);
    const listed = (await d.get('/v0/artifacts?prefix=s/')).json.items.map((a: { path: string }) => a.path);
    expect(listed).toEqual(['s/keep.md']);
  });

  it('search output is plain text off a terminal (no literal <mark>); cat of binary goes to a pipe', async () => {
    const { d, env } = await setup();
    await d.put('m/a.md', 'the zqmarkword is here');
    await d.put('m/dot.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]), { 'content-type': 'image/png' });
    let out = '';
    for (let i = 0; i < 50 && !out.includes('zqmarkword'); i++) {
      out = (await runCli(['search', 'zqmarkword'], env)).stdout;
      if (!out.includes('zqmarkword')) await new Promise((r) => setTimeout(r, 200));
    }
    expect(out).toContain('zqmarkword');
    expect(out).not.toContain('<mark>');
    expect(out).not.toContain('\x1b[1m');
    // Not a terminal here (a pipe): the bytes are printed as asked.
    const cat = await runCli(['cat', 'm/dot.png'], env);
    expect(cat.code, cat.stderr).toBe(0);
  });

  it('SDK: parameters with server defaults are optional (find and search without label or modality); suggestPaths', async () => {
    const tenant = await createTenant(api.ctx);
    const client = new DriveClient({ baseUrl: api.url, credential: { apiKey: tenant.apiKey } });
    // These calls type-check only because label and modality are optional in the generated types.
    const found = await ok(client.api.GET('/v0/find', { params: { query: { q: 'anything', mode: 'lexical' } } }));
    expect(found.items).toEqual([]);
    const searched = await ok(client.api.GET('/v0/search', { params: { query: { q: 'anything' } } }));
    expect(searched.items).toEqual([]);
    expect(await suggestPaths(client, ['Meeting notes (draft).md', 'plain.md'])).toEqual([
      { name: 'Meeting notes (draft).md', path: 'Meeting-notes-draft.md', mapped: true },
      { name: 'plain.md', path: 'plain.md', mapped: false },
    ]);
  });
});
