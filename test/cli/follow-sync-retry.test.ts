import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriveClient, uploadBytes } from '../../packages/client/src/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { freshConfigHome, outputUntil, runCli, startCli } from '../helpers/cli.js';
import { createTenant } from '../helpers/tenant.js';

/** `agent-drive events --follow`, `sync` and retries on 429, as subprocesses against the test stack (issue 30). */
let api: TestApi;
let home: string;
let apiKey: string;
let env: Record<string, string>;
const cli = (args: string[], input?: string) => runCli(args, env, input);

beforeAll(async () => {
  // Registrations from 127.0.0.1 are counted across the whole suite: this file's logins must not meet the per-IP limit.
  api = await startTestApi({ REGISTRATIONS_PER_IP_PER_HOUR: '100000' });
  home = freshConfigHome();
  apiKey = (await createTenant(api.ctx)).apiKey;
  env = { AGENT_DRIVE_CONFIG: path.join(home, 'config.json'), AGENT_DRIVE_URL: api.url };
  const login = await cli(['login', '--api-key'], `${apiKey}\n`);
  expect(login.code, login.stderr).toBe(0);
});
afterAll(async () => api?.close());

describe('agent-drive events --follow', () => {
  it('prints a write another client makes while it follows', async () => {
    const follower = startCli(['events', '--follow', '--json'], env);
    try {
      // Falls back to polling on a server without /v0/events/stream; either way it says which once it follows.
      await outputUntil(follower, 'stderr', (t) => t.includes('following events'));
      const other = new DriveClient({ baseUrl: api.url, credential: { apiKey }, actor: 'other-client' });
      const written = await uploadBytes(other, 'followed/new.txt', Buffer.from('hello\n'), {
        contentType: 'text/plain',
      });
      const out = await outputUntil(follower, 'stdout', (t) => t.includes(written.art_id));
      const event = out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { art_id: string; action: string; actor_name: string })
        .find((e) => e.art_id === written.art_id);
      expect(event).toMatchObject({ action: 'artifact.created', actor_name: 'other-client' });
    } finally {
      follower.kill('SIGTERM');
    }
  });
});

describe('agent-drive sync', () => {
  it('uploads every file once; a second run uploads nothing; --dry-run names a changed file and uploads nothing', async () => {
    const dir = path.join(home, 'site');
    mkdirSync(path.join(dir, 'sub', 'deep'), { recursive: true });
    writeFileSync(path.join(dir, 'a.md'), '# a\n');
    writeFileSync(path.join(dir, 'sub', 'b.txt'), 'b\n');
    writeFileSync(path.join(dir, 'sub', 'deep', 'c.json'), '{"c":1}\n');

    const first = await cli(['--json', 'sync', dir, 'site']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).uploaded).toEqual(['site/a.md', 'site/sub/b.txt', 'site/sub/deep/c.json']);

    const second = await cli(['--json', 'sync', dir, 'site/']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ uploaded: [], unchanged: expect.arrayContaining(['site/a.md']) });
    expect(JSON.parse(second.stdout).unchanged).toHaveLength(3);

    writeFileSync(path.join(dir, 'sub', 'b.txt'), 'b changed\n');
    const dry = await cli(['sync', dir, 'site', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('would upload site/sub/b.txt');
    expect(dry.stdout).toContain('1 to upload, 2 unchanged (dry run)');
    expect((await cli(['cat', 'site/sub/b.txt'])).stdout).toBe('b\n');

    const third = await cli(['sync', dir, 'site']);
    expect(third.stdout).toContain('1 uploaded, 2 unchanged, 0 failed');
    expect((await cli(['cat', 'site/sub/b.txt'])).stdout).toBe('b changed\n');
  });
});

describe('retries', () => {
  let proxy: Server;
  let proxyUrl: string;
  /** The next /v0 request the proxy answers itself instead of passing on. */
  let refuseNext: { status: number; retryAfter?: string } | undefined;
  let refused = 0;
  let passed = 0;
  beforeAll(async () => {
    // A real HTTP proxy in front of the API that refuses one request as told, then passes everything on.
    const target = new URL(api.url);
    proxy = createServer((req, res) => {
      if (req.url?.startsWith('/v0/') && refuseNext) {
        const { status, retryAfter } = refuseNext;
        refuseNext = undefined;
        refused++;
        req.resume();
        res.writeHead(status, {
          'content-type': 'application/json',
          ...(retryAfter ? { 'retry-after': retryAfter } : {}),
        });
        return res.end(JSON.stringify({ detail: { error: { code: 'RATE_LIMITED', message: 'not now' } } }));
      }
      passed++;
      const upstream = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => (res.writeHead(answer.statusCode!, answer.headers), answer.pipe(res)),
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

  it('a 429 with Retry-After is waited out and the command succeeds', async () => {
    await cli(['put', '-', 'retried/r.txt'], 'r\n');
    refuseNext = { status: 429, retryAfter: '1' };
    // The stored credential goes only to its own origin: through the proxy, the key comes from the environment.
    const r = await runCli(['--url', proxyUrl, '--json', 'ls', 'retried/'], { ...env, AGENT_DRIVE_API_KEY: apiKey });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('server answered 429; retry 1 in 1.0 s');
    expect(JSON.parse(r.stdout).map((a: { path: string }) => a.path)).toEqual(['retried/r.txt']);
    expect(refused).toBe(1);
    expect(passed).toBeGreaterThan(0);
  });

  it('a 503 without Retry-After is retried with backoff; a write goes through once', async () => {
    refuseNext = { status: 503 };
    const r = await runCli(
      ['--url', proxyUrl, '--json', 'put', '-', 'retried/after-503.txt'],
      { ...env, AGENT_DRIVE_API_KEY: apiKey },
      'after 503\n',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/server answered 503; retry 1 in \d/);
    expect(JSON.parse(r.stdout)).toMatchObject({ path: 'retried/after-503.txt', version_number: 1 });
    expect(refused).toBe(2);
  });
});
