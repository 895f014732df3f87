import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { freshConfigHome, runCli } from '../helpers/cli.js';
import { createTenant } from '../helpers/tenant.js';

/** `agent-drive sync` as one run, then `runs`, `undo`, `ls --as-of` and `snapshot`, as subprocesses (issue 38). */
let api: TestApi;
let home: string;
let env: Record<string, string>;
const cli = (args: string[]) => runCli(args, env);

beforeAll(async () => {
  api = await startTestApi();
  home = freshConfigHome();
  env = { AGENT_DRIVE_API_KEY: (await createTenant(api.ctx)).apiKey, AGENT_DRIVE_URL: api.url };
});
afterAll(async () => api?.close());

describe('agent-drive runs, undo, ls --as-of, snapshot', () => {
  it('one sync is one run; undo --dry-run previews it, undo reverts it; ls --as-of shows the drive then', async () => {
    const snap = await cli(['--json', 'snapshot', 'empty drive']);
    expect(snap.code, snap.stderr).toBe(0);
    expect(JSON.parse(snap.stdout)).toMatchObject({ label: 'empty drive', seq: 0 });

    const dir = path.join(home, 'site');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'a.md'), '# a\n');
    writeFileSync(path.join(dir, 'b.md'), '# b\n');
    const sync = await cli(['--json', 'sync', dir, 'site']);
    expect(sync.code, sync.stderr).toBe(0);
    const runId = JSON.parse(sync.stdout).run_id as string;
    expect(runId).toMatch(/^cli-sync-/);

    const runs = await cli(['--json', 'runs']);
    expect(JSON.parse(runs.stdout)).toMatchObject([{ run_id: runId, changes: { created: 2 } }]);
    expect((await cli(['runs'])).stdout).toContain(runId);

    const asOf = await cli(['--json', 'ls', '--as-of', '1']);
    expect(asOf.code, asOf.stderr).toBe(0);
    expect(JSON.parse(asOf.stdout).map((a: { path: string }) => a.path)).toEqual(['site/a.md']);

    const dry = await cli(['undo', runId, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('(dry run: nothing changed)');
    expect(JSON.parse((await cli(['--json', 'ls'])).stdout)).toHaveLength(2);

    const undo = await cli(['--json', 'undo', runId]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(JSON.parse(undo.stdout).changes.map((c: { outcome: string }) => c.outcome)).toEqual([
      'reverted',
      'reverted',
    ]);
    expect(JSON.parse((await cli(['--json', 'ls'])).stdout)).toEqual([]);
    expect((await cli(['undo', 'no-such-run'])).code).not.toBe(0);
  });
});
