import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { freshConfigHome, runCli } from '../helpers/cli.js';
import { createTenant } from '../helpers/tenant.js';
import { mcpClient } from '../mcp/helpers.js';
import { driveClient } from './client.js';

/** Issue 39, "every folder a folder": a folder only paths imply is looked up, shared and granted at every door. */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api?.close());

describe('implied folders', () => {
  it('REST: sharing and granting an implied folder makes its record', async () => {
    const d = await driveClient(api, await createTenant(api.ctx));
    await d.put('docs/a.md', 'a');
    // Issue 55 part 3: a read answers the implied folder, with no record (and makes none).
    for (const url of ['/v0/folders/docs', '/v0/folders/docs/meta', '/v0/folders/%2Fdocs%2F']) {
      const implied = await d.get(url);
      expect(implied.status, url).toBe(200);
      expect(implied.json).toMatchObject({ path: '/docs/', fld_id: null, implied: true });
    }
    expect((await d.get('/v0/folders/nothing/meta')).code).toBe('NOT_FOUND');
    const share = await d.call('POST', '/v0/shares', { json: { resource: 'docs/' } });
    expect(share.status, share.bytes.toString()).toBeLessThan(300);
    const folder = await d.get('/v0/folders/docs/meta');
    expect(folder.status).toBe(200);
    expect(folder.json).toMatchObject({ implied: false, fld_id: expect.stringMatching(/^fld_/) });
    expect(share.json.resource ?? share.json.fld_id ?? JSON.stringify(share.json)).toContain(folder.json.fld_id);
    await d.put('more/b.md', 'b');
    const other = await driveClient(api);
    const me = (await other.get('/v0/drives/me')).json;
    const grant = await d.call('POST', '/v0/grants', {
      json: { resource: 'more', principal: { type: 'user', email: me.email }, role: 'viewer' },
    });
    expect(grant.status, grant.bytes.toString()).toBe(201);
    // Each record was made in the same transaction as the link or grant naming it: rows of one transaction share xmin.
    const sameCommit = async (table: 'shares' | 'grants', id: string, folderPath: string) => {
      const [row] = await api.ctx.orm.em.fork().execute(
        `select (select xmin::text from folders where drive_id = r.drive_id and path = ? and deleted_at is null) as f,
                r.xmin::text as r from ${table} r where r.id = ?`,
        [folderPath, id],
      );
      expect(row.f).toBe(row.r);
    };
    await sameCommit('shares', share.json.shr_id, 'docs');
    await sameCommit('grants', grant.json.grn_id, 'more');
    // Nothing under a path: still not found.
    expect((await d.call('POST', '/v0/shares', { json: { resource: 'nothing/' } })).code).toBe('NOT_FOUND');
  });

  it('MCP: lookup answers an implied folder; share makes it a folder', async () => {
    const tenant = await createTenant(api.ctx);
    const s = await mcpClient(api, tenant.apiKey);
    try {
      await s.ok('upload', { path: 'notes/x.md', content: 'x' });
      const seen = await s.ok<{ kind: string; folder: { path: string; implied: boolean } }>('lookup', {
        ref: 'notes/',
      });
      expect(seen).toMatchObject({ kind: 'folder', folder: { path: 'notes/', implied: true } });
      const minted = await s.ok<{ role: string }>('share', { resource: 'notes/' });
      expect(minted.role).toBe('viewer');
      const now = await s.ok<{ kind: string; folder: { fld_id: string } }>('lookup', { ref: 'notes/' });
      expect(now.folder.fld_id).toMatch(/^fld_/);
      expect((await s.fail('lookup', { ref: 'absent/' })).code).toBe('NOT_FOUND');
    } finally {
      await s.close();
    }
  });

  it('a folder path is at most 256 characters as sent, slashes included (as the OpenAPI document declares)', async () => {
    const d = await driveClient(api, await createTenant(api.ctx));
    const long = 'a'.repeat(256);
    const wrapped = await d.call('PATCH', `/v0/folders/%2F${long}%2F`, { json: { description: 'x' } });
    expect(wrapped.code).toBe('INVALID_PATH');
    expect((await d.call('POST', `/v0/folders/${long}`)).status).toBeLessThan(300);
    const bare = await d.call('PATCH', `/v0/folders/${long}`, { json: { description: 'x' } });
    expect(bare.status, bare.bytes.toString()).toBe(200);
    const doc = (await d.get('/openapi.json')).json;
    const param = doc.paths['/v0/folders/{path}'].patch.parameters.find((p: { name: string }) => p.name === 'path');
    expect(param.schema.maxLength).toBe(256);
  });

  it('CLI: share an implied folder; mkdir', async () => {
    const tenant = await createTenant(api.ctx);
    const d = await driveClient(api, tenant);
    await d.put('cli/a.md', 'a');
    const env = { XDG_CONFIG_HOME: freshConfigHome(), AGENT_DRIVE_URL: api.url, AGENT_DRIVE_API_KEY: tenant.apiKey };
    const share = await runCli(['share', 'cli/'], env);
    expect(share.code, share.stderr).toBe(0);
    expect(share.stdout).toMatch(/^http/);
    const made = await runCli(['--json', 'mkdir', 'empty/sub', '--description', 'nothing yet'], env);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ path: '/empty/sub/', description: 'nothing yet' });
  });
});
