import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { freshConfigHome, runCli } from '../helpers/cli.js';
import { createTenant } from '../helpers/tenant.js';

/** `agent-drive edit` and `agent-drive lines` as a subprocess against the test stack (issue 57, every door). */
let api: TestApi;
let env: Record<string, string>;
const cli = (args: string[]) => runCli(args, env);

beforeAll(async () => {
  api = await startTestApi();
  const { apiKey } = await createTenant(api.ctx);
  env = {
    XDG_CONFIG_HOME: freshConfigHome(),
    AGENT_DRIVE_URL: api.url,
    AGENT_DRIVE_CONFIG: '',
    AGENT_DRIVE_API_KEY: apiKey,
  };
}, 120_000);
afterAll(async () => api?.close());

describe('agent-drive edit and lines', () => {
  it('replaces and inserts as one version each, prints the diff; lines numbers them as the memory tool', async () => {
    for (const command of ['edit', 'lines']) {
      const help = await cli([command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout).toContain(`Usage: agent-drive ${command}`);
    }
    const wrote = await runCli(['put', '-', 'notes/todo.md'], env, 'one\ntwo\nthree\n');
    expect(wrote.code, wrote.stderr).toBe(0);

    const dry = await cli(['edit', 'notes/todo.md', '--old', 'two', '--new', 'TWO', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('-two\n+TWO');
    expect(dry.stderr).toContain('dry run, nothing written');

    const edited = await cli(['edit', 'notes/todo.md', '--old', 'two', '--new', 'TWO', '--summary', 'shout']);
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stderr).toMatch(/v\d+ → v\d+/);
    const inserted = await cli(['--json', 'edit', 'notes/todo.md', '--insert-line', '0', '--text', 'zero']);
    expect(inserted.code, inserted.stderr).toBe(0);
    expect(JSON.parse(inserted.stdout)).toMatchObject({ applied: true, replacements: 0 });

    const lines = await cli(['lines', 'notes/todo.md', '--start', '2', '--count', '2']);
    expect(lines.code, lines.stderr).toBe(0);
    expect(lines.stdout).toBe('     2\tone\n     3\tTWO\n');
    expect(lines.stderr).toContain('lines 2-3 of 4');
    expect((await cli(['lines', 'notes/todo.md', '--plain'])).stdout).toBe('zero\none\nTWO\nthree\n');

    const stale = await cli(['edit', 'notes/todo.md', '--old', 'one', '--new', '1', '--if-match', '1']);
    expect(stale.code).toBe(4);
    expect(stale.stderr).toContain('PRECONDITION_FAILED');
    const usage = await cli(['edit', 'notes/todo.md', '--old', 'one']);
    expect(usage.code).toBe(2);
    expect((await cli(['edit', 'notes/todo.md', '--insert-line', '-1', '--text', 'x'])).code).toBe(2);
  });
});
