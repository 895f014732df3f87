import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { freshConfigHome, runCli } from '../helpers/cli.js';
import { mintApiKey } from '../../src/identity/api-keys.js';
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
    // A preview says what it would do, one line per file; it reverted nothing (issue 55).
    expect(dry.stdout).toMatch(/^would trash +site\/a\.md -> trash$/m);
    expect(dry.stdout).toMatch(/^would trash +site\/b\.md -> trash$/m);
    expect(dry.stdout).not.toMatch(/revert/);
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

  it('each invocation is its own run; snapshots, rewind (dry run first), cat/get/ls --as-of a snapshot', async () => {
    // A key the person labelled: runs are named by it (issue 55), not by "api_key".
    const { driveId } = await createTenant(api.ctx);
    const labelled = await mintApiKey(api.ctx.orm.em.fork(), driveId, 'nightly-report');
    const fresh = { ...env, AGENT_DRIVE_API_KEY: labelled.key };
    const run = (args: string[]) => runCli(args, fresh);
    const file = path.join(home, 'plan.md');
    writeFileSync(file, 'first plan\n');
    expect((await run(['put', file, 'notes/plan.md'])).code).toBe(0);
    const snap = JSON.parse((await run(['--json', 'snapshot', 'before the scripts'])).stdout) as {
      snapshot_id: string;
    };
    writeFileSync(file, 'second plan\n');
    expect((await run(['put', file, 'notes/plan.md'])).code).toBe(0);
    expect((await run(['put', file, 'notes/extra.md'])).code).toBe(0);
    expect((await run(['rm', 'notes/plan.md'])).code).toBe(0);

    // Four invocations on one key: four runs, not one run per credential for ten minutes.
    const runs = JSON.parse((await run(['--json', 'runs'])).stdout) as { run_id: string }[];
    expect(runs.map((r) => r.run_id.replace(/-\d{8}T\d{6}-[a-z0-9]+$/, ''))).toEqual([
      'cli-rm',
      'cli-put',
      'cli-put',
      'cli-put',
    ]);

    expect((await run(['runs'])).stdout).toMatch(/^cli-rm-\S+ +nightly-report /m);

    const listed = await run(['snapshots']);
    expect(listed.stdout).toContain(snap.snapshot_id);
    expect(listed.stdout).toContain('before the scripts');

    // The drive as of the snapshot, though notes/plan.md is in the trash now.
    const ls = await run(['--json', 'ls', '--as-of', snap.snapshot_id]);
    expect(ls.code, ls.stderr).toBe(0);
    expect(JSON.parse(ls.stdout).map((a: { path: string }) => a.path)).toEqual(['notes/plan.md']);
    const cat = await run(['cat', 'notes/plan.md', '--as-of', snap.snapshot_id]);
    expect([cat.code, cat.stdout], cat.stderr).toEqual([0, 'first plan\n']);
    const got = path.join(home, 'plan-then.md');
    expect((await run(['get', 'notes/plan.md', got, '--as-of', snap.snapshot_id])).code).toBe(0);
    expect(readFileSync(got, 'utf8')).toBe('first plan\n');

    const past = await run(['ls', '--as-of', '999']);
    expect(past.code).not.toBe(0);
    expect(past.stderr).toContain('AS_OF_OUT_OF_RANGE');
    expect((await run(['ls', '--as-of', 'yesterday'])).code).toBe(2);

    const dry = await run(['rewind', snap.snapshot_id, '--prefix', 'notes/', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^would restore\S* +notes\/plan\.md/m);
    expect(dry.stdout).toMatch(/^would trash +notes\/extra\.md -> trash$/m);
    expect(dry.stdout).toContain('(dry run: nothing changed)');
    expect(JSON.parse((await run(['--json', 'ls'])).stdout).map((a: { path: string }) => a.path)).toEqual([
      'notes/extra.md',
    ]);

    const done = await run(['--json', 'rewind', snap.snapshot_id]);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout).revert_run_id).toMatch(/^rewind_/);
    expect((await run(['cat', 'notes/plan.md'])).stdout).toBe('first plan\n');
    expect(JSON.parse((await run(['--json', 'ls'])).stdout).map((a: { path: string }) => a.path)).toEqual([
      'notes/plan.md',
    ]);
  });
});
