import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { freshConfigHome, runCli } from '../helpers/cli.js';

/** Issue 37, finding 11: the CLI's stored credential stays with its origin; secrets never ride on the command line. */
let api: TestApi;
let env: Record<string, string>;
let apiKey: string;
const seen: IncomingHttpHeaders[] = [];
const other = createServer((req, res) => {
  seen.push(req.headers);
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[],"next_cursor":null}');
});
let otherUrl: string;

beforeAll(async () => {
  api = await startTestApi();
  apiKey = (await createTenant(api.ctx)).apiKey;
  env = { AGENT_DRIVE_CONFIG: path.join(freshConfigHome(), 'config.json'), AGENT_DRIVE_URL: api.url };
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => other.close(() => resolve()));
  await api?.close();
});

describe('agent-drive credentials', () => {
  it('logs in with a key read from stdin, not from an argument', async () => {
    const r = await runCli(['--json', 'login', '--api-key'], env, `${apiKey}\n`);
    expect(r.code, r.stderr).toBe(0);
    expect((await runCli(['login', '--api-key', apiKey, '--force'], env)).code).not.toBe(0);
  });

  it('refuses to send the stored credential to another origin', async () => {
    for (const args of [['--url', otherUrl, 'ls'], ['ls']]) {
      const r = await runCli(args, { ...env, ...(args.length === 1 ? { AGENT_DRIVE_URL: otherUrl } : {}) });
      expect([r.code, r.stderr]).toEqual([5, expect.stringContaining('CREDENTIAL_ORIGIN_MISMATCH')]);
    }
    expect(seen).toHaveLength(0);
    // Its own origin still works.
    expect((await runCli(['ls'], env)).code).toBe(0);
  });

  it('refuses plain http to a host other than this machine', async () => {
    const r = await runCli(['--url', 'http://drive.example.test', 'ls'], env);
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining('INSECURE_URL')]);
  });

  it('reads a share password from the environment', async () => {
    expect((await runCli(['put', '-', 'pw/a.md'], env, 'a\n')).code).toBe(0);
    const r = await runCli(['--json', 'share', 'pw/a.md', '--password'], {
      ...env,
      AGENT_DRIVE_SHARE_PASSWORD: 'a long secret',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ has_password: true });
  });
});
