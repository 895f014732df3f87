import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { freshConfigHome, runCli } from '../helpers/cli.js';
import { createTenant } from '../helpers/tenant.js';
import { mcpClient } from '../mcp/helpers.js';
import { claimedOwner, mintKey, useBrowserSuite } from '../viewer/owner-helpers.js';
import { driveClient } from './client.js';

/**
 * Issue 39, "any version back": version 1 restored over version 3 gives version 4 with version 1's bytes, hash, labels
 * and metadata, through REST, MCP, the CLI and the web history page.
 */
let api: TestApi;
let browser: Browser;
useBrowserSuite((suite) => ({ api, browser } = suite));

/** Three versions of one file, each with its own labels and metadata. */
async function threeVersions(d: Awaited<ReturnType<typeof driveClient>>, path: string) {
  const v1 = await d.put(path, 'one', { 'x-drive-labels': 'first', 'x-drive-metadata': '{"n":1}' });
  await d.put(path, 'two', { 'x-drive-labels': 'second', 'x-drive-metadata': '{"n":2}' });
  const v3 = await d.put(path, 'three', { 'x-drive-labels': 'third', 'x-drive-metadata': '{"n":3}' });
  expect(v3.json.version_number).toBe(3);
  return { v1: v1.json, artId: v1.json.art_id as string };
}

describe('restore an earlier version', () => {
  it('REST: a new current version with the bytes, hash, labels and metadata of the old one; If-Match; the event', async () => {
    const d = await driveClient(api, await createTenant(api.ctx));
    const { v1, artId } = await threeVersions(d, 'r/a.md');
    const stale = await d.call('POST', `/v0/artifacts/${artId}/versions/1/restore`, { headers: { 'if-match': '2' } });
    expect(stale.status).toBe(412);
    const back = await d.call('POST', `/v0/artifacts/${artId}/versions/1/restore`, { headers: { 'if-match': '3' } });
    expect(back.status, back.bytes.toString()).toBe(200);
    expect(back.json).toMatchObject({ art_id: artId, version_number: 4, hash: v1.hash, labels: ['first'] });
    expect(back.json.metadata).toEqual({ n: 1 });
    expect((await d.get(`/v0/artifacts/${artId}/download`)).bytes.toString()).toBe('one');
    const v4 = await d.get(`/v0/artifacts/${artId}/versions/4`);
    expect(v4.json).toMatchObject({ hash: v1.hash, change_summary: 'restored from version 1' });
    const events = await d.events(`?art_id=${artId}`);
    expect(events.find((e) => e.metadata.version_number === 4)).toMatchObject({
      action: 'artifact.updated',
      metadata: { restored_from_version: 1 },
    });
    // The bytes are shared: one blob row for the hash, pinned by both versions.
    const blobs = await api.ctx.orm.em.fork().execute(`select count(*)::int as n from blobs where hash = ?`, [v1.hash]);
    expect(blobs[0].n).toBe(1);
    expect((await d.call('POST', `/v0/artifacts/${artId}/versions/9/restore`)).status).toBe(404);
    const doc = (await d.get('/openapi.json')).json;
    expect(doc.paths['/v0/artifacts/{art_id}/versions/{version_number}/restore'].post).toBeTruthy();
  });

  it('MCP: restore takes an optional version', async () => {
    const tenant = await createTenant(api.ctx);
    const d = await driveClient(api, tenant);
    const { v1 } = await threeVersions(d, 'm/a.md');
    const s = await mcpClient(api, tenant.apiKey);
    try {
      const back = await s.ok<{ version_number: number; hash: string; labels: string[] }>('restore', {
        ref: 'm/a.md',
        version: 1,
      });
      expect(back).toMatchObject({ version_number: 4, hash: v1.hash, labels: ['first'] });
      expect(back._text).toContain('Restored version 1');
      expect((await s.fail('restore', { ref: 'm/a.md', version: 1, overwrite: true })).code).toBe('VALIDATION_ERROR');
      expect((await s.fail('restore', { ref: 'm/a.md', version: 2, if_match: 3 })).code).toBe('PRECONDITION_FAILED');
    } finally {
      await s.close();
    }
  });

  it('CLI: restore --version, cat/get --version; the program version only first on the line', async () => {
    const tenant = await createTenant(api.ctx);
    const d = await driveClient(api, tenant);
    const { v1 } = await threeVersions(d, 'c/a.md');
    const env = { XDG_CONFIG_HOME: freshConfigHome(), AGENT_DRIVE_URL: api.url, AGENT_DRIVE_API_KEY: tenant.apiKey };
    const cat1 = await runCli(['cat', 'c/a.md', '--version', '1'], env);
    expect(cat1).toMatchObject({ code: 0, stdout: 'one' });
    const back = await runCli(['--json', 'restore', 'c/a.md', '--version', '1'], env);
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ version_number: 4, hash: v1.hash });
    expect((await runCli(['cat', 'c/a.md', '--version', '2'], env)).stdout).toBe('two');
    const bad = await runCli(['cat', 'c/a.md', '--version', 'x'], env);
    expect(bad.code).toBe(2);
    expect((await runCli(['--version'], env)).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('web: "Restore this version" on the history page', async () => {
    const page = await browser.newPage();
    const driveId = await claimedOwner(api, page);
    const key = await mintKey(api, page);
    const d = await driveClient(api, { driveId, email: '', apiKey: key, auth: { authorization: `Bearer ${key}` } });
    const { v1 } = await threeVersions(d, 'w/a.md');
    await page.goto(`${api.url}/${driveId}/w/a.md?history=1`);
    await page.getByTestId('restore-v1').click();
    await page.waitForURL('**/w/a.md?history=1');
    expect(await page.getByTestId('notice').textContent()).toContain('Restored version 1 as version 4');
    const now = await d.get(`/v0/artifacts/w/a.md/meta`);
    expect(now.json).toMatchObject({ version_number: 4, hash: v1.hash });
    await page.close();
  });
});
