import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { freshConfigHome, runCli } from '../helpers/cli.js';
import { createTenant } from '../helpers/tenant.js';
import { claimedOwner, mintKey, useBrowserSuite } from '../viewer/owner-helpers.js';
import { driveClient } from './client.js';

/**
 * Issue 39, "names": a name with spaces, brackets and accents goes up through the CLI, sync and the web upload to the
 * same path (the one rule of src/files/file-names.ts), and its original name comes back on get, on download and in
 * the web page.
 */
let api: TestApi;
let browser: Browser;
useBrowserSuite((suite) => ({ api, browser } = suite));

const MEETING = 'Meeting notes (draft).md';
const RESUME = 'résumé.md';
const rfc8187 = (name: string) =>
  `UTF-8''${encodeURIComponent(name).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;

const fresh = async () => {
  const tenant = await createTenant(api.ctx);
  const d = await driveClient(api, tenant);
  const env = { XDG_CONFIG_HOME: freshConfigHome(), AGENT_DRIVE_URL: api.url, AGENT_DRIVE_API_KEY: tenant.apiKey };
  return { d, env };
};

describe('file names as people have them', () => {
  it('REST: the suggest helper maps names in one batch; X-Drive-Filename is kept and comes back on download', async () => {
    const { d } = await fresh();
    const q = [MEETING, RESUME, 'a b.md', 'a-b.md', 'ok_name.txt', 'dir one/Ünïcode file.tex']
      .map((n) => `name=${encodeURIComponent(n)}`)
      .join('&');
    const suggest = await d.get(`/v0/paths/suggest?${q}`);
    expect(suggest.status).toBe(200);
    expect(suggest.json.items.map((i: { path: string }) => i.path)).toEqual([
      'Meeting-notes-draft.md',
      'resume.md',
      'a-b.md',
      'a-b-2.md',
      'ok_name.txt',
      'dir-one/Unicode-file.tex',
    ]);
    expect(suggest.json.items[4].mapped).toBe(false);
    expect((await d.get('/v0/paths/suggest')).status).toBe(422);

    const put = await d.put('Meeting-notes-draft.md', 'notes', { 'x-drive-filename': rfc8187(MEETING) });
    expect(put.status, put.bytes.toString()).toBe(200);
    expect(put.json.filename).toBe(MEETING);
    const down = await d.get(`/v0/artifacts/${put.json.art_id}/download`);
    expect(down.headers.get('content-disposition')).toContain(`filename*=UTF-8''${rfc8187(MEETING).slice(7)}`);
    // An overwrite without the header keeps the name; a rename away from it stops using it.
    expect((await d.put('Meeting-notes-draft.md', 'v2')).json.filename).toBe(MEETING);
    const bad = await d.put('x.md', 'x', { 'x-drive-filename': "UTF-8''%ZZ" });
    expect(bad.code).toBe('INVALID_FILENAME');
    expect((await d.put('x.md', 'x', { 'x-drive-filename': rfc8187('a/b') })).code).toBe('INVALID_FILENAME');
    const doc = (await d.get('/openapi.json')).json;
    expect(doc.paths['/v0/paths/suggest'].get).toBeTruthy();
    expect(JSON.stringify(doc.paths['/v0/artifacts/{path}'].put.parameters)).toContain('x-drive-filename');
    expect(JSON.stringify(doc.paths['/v0/uploads'].post.parameters)).toContain('x-drive-filename');
    expect(JSON.stringify(doc)).toContain('the name a person gave the file');
  });

  it('CLI: put maps the name and says so; get writes the original name back (into a directory); sync maps alike', async () => {
    const { d, env } = await fresh();
    const work = mkdtempSync(path.join(tmpdir(), 'names-'));
    writeFileSync(path.join(work, MEETING), 'meeting bytes');
    const put = await runCli(['--json', 'put', path.join(work, MEETING), 'docs/'], env);
    expect(put.code, put.stderr).toBe(0);
    expect(put.stderr).toContain(`docs/${MEETING} → docs/Meeting-notes-draft.md`);
    expect(JSON.parse(put.stdout)).toMatchObject({ path: 'docs/Meeting-notes-draft.md', filename: MEETING });

    const out = path.join(work, 'out');
    mkdirSync(out);
    const got = await runCli(['get', 'docs/Meeting-notes-draft.md', out], env);
    expect(got.code, got.stderr).toBe(0);
    expect(readFileSync(path.join(out, MEETING), 'utf8')).toBe('meeting bytes');

    const dir = path.join(work, 'tree');
    mkdirSync(path.join(dir, 'sub dir'), { recursive: true });
    writeFileSync(path.join(dir, RESUME), 'cv');
    writeFileSync(path.join(dir, 'sub dir', MEETING), 'nested');
    const sync = await runCli(['sync', dir, 'synced'], env);
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stderr).toContain(`${RESUME} → resume.md`);
    const listed = await d.get('/v0/artifacts?prefix=synced/');
    expect(listed.json.items.map((a: { path: string; filename: string }) => [a.path, a.filename])).toEqual([
      ['synced/resume.md', RESUME],
      ['synced/sub-dir/Meeting-notes-draft.md', MEETING],
    ]);
  });

  it('web: the upload maps the name to the same path, says so, and the page shows the original name', async () => {
    const page = await browser.newPage();
    const driveId = await claimedOwner(api, page);
    await mintKey(api, page);
    await page.goto(`${api.url}/${driveId}/`);
    await page.getByText('Upload', { exact: true }).first().click();
    await page.locator('input[type=file]').setInputFiles([
      { name: MEETING, mimeType: 'text/markdown', buffer: Buffer.from('# web\n') },
      { name: RESUME, mimeType: 'text/markdown', buffer: Buffer.from('# cv\n') },
    ]);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.waitForURL(`**/${driveId}/`);
    const notice = await page.getByTestId('notice').textContent();
    expect(notice).toContain(`${MEETING} → Meeting-notes-draft.md`);
    expect(notice).toContain(`${RESUME} → resume.md`);
    await page.goto(`${api.url}/${driveId}/Meeting-notes-draft.md`);
    expect(await page.getByTestId('original-name').textContent()).toContain(MEETING);
    const download = await page.request.get(`${api.url}/${driveId}/resume.md?download=1`);
    expect(download.headers()['content-disposition']).toContain(`filename*=UTF-8''r%C3%A9sum%C3%A9.md`);
    await page.close();
  });
});
