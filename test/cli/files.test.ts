import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { freshConfigHome, runCli } from '../helpers/cli.js';

/** `agent-drive` as a subprocess against the test stack: login, then the file commands (issue 30). */
let api: TestApi;
let home: string;
let env: Record<string, string>;
const cli = (args: string[], input?: string | Buffer) => runCli(args, env, input);
const json = async (args: string[], input?: string) => {
  const r = await cli(['--json', ...args], input);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

beforeAll(async () => {
  // Registrations from 127.0.0.1 are counted across the whole suite: this file's logins must not meet the per-IP limit.
  api = await startTestApi({ REGISTRATIONS_PER_IP_PER_HOUR: '100000' });
  home = freshConfigHome();
  env = { XDG_CONFIG_HOME: home, AGENT_DRIVE_URL: api.url, AGENT_DRIVE_CONFIG: '' };
});
afterAll(async () => api?.close());

describe('agent-drive login', () => {
  it('--help on every command; a bad option value is a usage error (exit 2)', async () => {
    for (const command of ['login', 'claim', 'whoami', 'ls', 'cat', 'put', 'get', 'mv', 'cp', 'rm', 'restore']) {
      const help = await cli([command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout).toContain(`Usage: agent-drive ${command}`);
    }
    expect((await cli(['put', '-', 'x.txt', '--metadata', '[1]'])).code).toBe(2);
  });

  it('registers an anonymous drive, keeps the credential in the config dir with mode 0600, prints the claim link', async () => {
    const r = await cli(['login']);
    expect(r.code, r.stderr).toBe(0);
    const file = path.join(home, 'agent-drive', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const config = JSON.parse(readFileSync(file, 'utf8'));
    expect(config).toMatchObject({ url: api.url, drive_id: expect.stringMatching(/^drv_/) });
    expect(config.identity_assertion).toEqual(expect.any(String));
    expect(r.stdout).toContain(config.drive_id);
    expect(r.stdout).toMatch(/a human opens: http\S+/);
    expect(r.stdout).not.toContain(config.claim_token);

    const me = await json(['whoami']);
    expect(me.drive_id).toBe(config.drive_id);
    // The access token the first command got is kept for the next ones.
    expect(JSON.parse(readFileSync(file, 'utf8')).access_token).toEqual(expect.any(String));

    // A second login would lose the unclaimed drive: refused (exit 4) without --force.
    const again = await cli(['login']);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('ALREADY_LOGGED_IN');
    expect(JSON.parse(readFileSync(file, 'utf8')).drive_id).toBe(config.drive_id);

    const claim = await json(['claim']);
    expect(claim).toMatchObject({ claim_url: expect.stringMatching(/^http/), user_code: expect.any(String) });
  });
});

describe('file commands', () => {
  it('put (a file with labels and metadata, and stdin), ls, cat, versions', async () => {
    const local = path.join(home, 'notes.md');
    writeFileSync(local, '# Notes\nzqcliword first\n');
    const put = await json(['put', local, 'docs/notes.md', '--label', 'draft,cli', '--metadata', '{"owner":"cli"}']);
    expect(put).toMatchObject({ path: 'docs/notes.md', labels: ['draft', 'cli'], metadata: { owner: 'cli' } });
    expect(put.content_type).toBe('text/markdown');

    const fromStdin = await cli(['put', '-', 'docs/piped.txt'], 'from stdin\n');
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(fromStdin.stdout).toContain('docs/piped.txt');

    const listing = await cli(['ls', 'docs/']);
    expect(listing.code, listing.stderr).toBe(0);
    expect(
      listing.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(['docs/notes.md', 'docs/piped.txt']);
    expect((await json(['ls', 'docs/', '--label', 'cli'])).map((a: { path: string }) => a.path)).toEqual([
      'docs/notes.md',
    ]);

    expect((await cli(['cat', 'docs/piped.txt'])).stdout).toBe('from stdin\n');
    expect((await cli(['cat', put.art_id])).stdout).toBe('# Notes\nzqcliword first\n');

    await json(['put', '-', 'docs/notes.md', '--message', 'second'], '# Notes\nzqcliword second\n');
    const versions = await json(['versions', 'docs/notes.md']);
    expect(versions.map((v: { version_number: number }) => v.version_number)).toEqual([2, 1]);
    expect(versions[0].change_summary).toBe('second');

    const out = path.join(home, 'copy-of-notes.md');
    expect((await cli(['get', 'docs/notes.md', out])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('# Notes\nzqcliword second\n');
  });

  it('mv keeps the id; cp to a taken path exits 4 (conflict); cat of a missing path exits 3 (not found)', async () => {
    await json(['put', '-', 'moves/a.txt'], 'a\n');
    const before = await json(['ls', 'moves/']);
    const moved = await json(['mv', 'moves/a.txt', 'moves/b.txt']);
    expect(moved).toMatchObject({ path: 'moves/b.txt', art_id: before[0].art_id });
    expect((await cli(['cat', 'moves/b.txt'])).stdout).toBe('a\n');

    const gone = await cli(['cat', 'moves/a.txt']);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/NOT_FOUND/);

    expect((await json(['cp', 'moves/b.txt', 'moves/c.txt'])).path).toBe('moves/c.txt');
    const taken = await cli(['cp', 'moves/b.txt', 'moves/c.txt']);
    expect(taken.code).toBe(4);
    expect(taken.stderr).toContain('PATH_CONFLICT');
  });

  it('rm moves to the trash; restore by path brings it back', async () => {
    await json(['put', '-', 'trash/t.txt'], 'keep me\n');
    const removed = await json(['rm', 'trash/t.txt']);
    expect(removed.purge_at).toEqual(expect.any(String));
    expect(await json(['ls', 'trash/'])).toEqual([]);

    const back = await json(['restore', 'trash/t.txt']);
    expect(back).toMatchObject({ path: 'trash/t.txt', art_id: removed.art_id, deleted_at: null });
    expect((await cli(['cat', 'trash/t.txt'])).stdout).toBe('keep me\n');
  });

  it('find returns the passage once the artifact is indexed; search too', async () => {
    const word = 'zqfindablecliword';
    const put = await json(['put', '-', 'found/it.md', '--content-type', 'text/markdown'], `# Found\n${word} here\n`);
    // Indexing is asynchronous (the outbox and the worker): wait until the artifact says it is indexed.
    while (!(await fetchMeta(put.art_id)).indexed_at) await new Promise((r) => setTimeout(r, 250));
    const hits = await json(['find', word, '--mode', 'lexical']);
    expect(hits.map((h: { art_id: string }) => h.art_id)).toContain(put.art_id);
    // Hybrid without an embeddings provider: the hits on stdout, and a note on stderr that they are lexical only.
    const hybrid = await cli(['find', word]);
    expect(hybrid.stdout).toContain('found/it.md');
    expect(hybrid.stderr).toMatch(/note: semantic off: .*lexical only/);
    const human = await cli(['search', word]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('found/it.md');
  });

  it('share mints a link once; the link opens the artifact', async () => {
    await json(['put', '-', 'shared/s.txt'], 'shared text\n');
    const share = await json(['share', 'shared/s.txt']);
    expect(share).toMatchObject({ role: 'viewer', share_key: expect.any(String), url: expect.stringMatching(/^http/) });
    expect((await fetch(share.url)).status).toBe(200);
    const human = await cli(['share', 'shared/s.txt', '--role', 'viewer']);
    expect(human.stdout.split('\n')[0]).toMatch(/^http\S+$/);
  });

  it('a file over the buffered limit goes through /v0/uploads and reads back the same', async () => {
    const big = Buffer.alloc(300 * 1024, 'x');
    const local = path.join(home, 'big.bin');
    writeFileSync(local, big);
    const r = await runCli(['--json', 'put', local, 'big/big.bin'], { ...env, AGENT_DRIVE_BUFFERED_LIMIT: '65536' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ path: 'big/big.bin', size_bytes: big.length });
    const { rows } = await api.ctx.pool.query<{ state: string }>(
      `select state from upload_sessions where path = 'big/big.bin'`,
    );
    expect(rows).toEqual([{ state: 'committed' }]);
    const events = await json(['events', '--action', 'artifact.created', '--limit', '1']);
    expect(events[0].metadata.path).toBe('big/big.bin');
    const back = await cli(['cat', 'big/big.bin']);
    expect(back.stdout.length).toBe(big.length);
  });
});

/** The artifact record with the credential the CLI stored (a second client of the same drive). */
async function fetchMeta(artId: string): Promise<Record<string, unknown>> {
  const config = JSON.parse(readFileSync(path.join(home, 'agent-drive', 'config.json'), 'utf8'));
  const res = await fetch(`${api.url}/v0/artifacts/${artId}`, {
    headers: { authorization: `Bearer ${config.access_token}` },
  });
  return (await res.json()) as Record<string, unknown>;
}
