import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { freshConfigHome, runCli } from '../helpers/cli.js';
import { createTenant } from '../helpers/tenant.js';
import { mcpClient } from '../mcp/helpers.js';
import { driveClient } from './client.js';

/**
 * Issue 55, "names everywhere": a name as a person writes it, sent where a path goes, is refused with the path the
 * name rule maps it to (`suggested_path`) and the header that keeps the original; the kept name shows in listings.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api?.close());

const MEETING = 'Meeting notes (draft).md';
const rfc8187 = (name: string) =>
  `UTF-8''${encodeURIComponent(name).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;

describe('names at the REST and MCP doors', () => {
  it('REST PUT refuses a person’s name with the suggested path and the header that keeps it', async () => {
    const d = await driveClient(api, await createTenant(api.ctx));
    const refused = await d.put(`notes/${encodeURIComponent(MEETING)}`, 'x');
    expect(refused.status).toBe(400);
    expect(refused.code).toBe('INVALID_PATH');
    expect(refused.json.detail.error.suggested_path).toBe('notes/Meeting-notes-draft.md');
    expect(refused.json.detail.error.message).toContain('X-Drive-Filename');
    const put = await d.put('notes/Meeting-notes-draft.md', 'x', { 'x-drive-filename': rfc8187(MEETING) });
    expect(put.status, put.bytes.toString()).toBe(200);
    expect(put.json.filename).toBe(MEETING);
    // The listing carries the kept name beside the path.
    const list = await d.get('/v0/artifacts?prefix=notes/');
    expect(list.json.items[0]).toMatchObject({ path: 'notes/Meeting-notes-draft.md', filename: MEETING });
    // A percent escape without UTF-8'' would be kept literally: 400 naming the RFC 8187 form.
    const literal = await d.put('resume.md', 'x', { 'x-drive-filename': 'r%C3%A9sum%C3%A9.md' });
    expect(literal.code).toBe('INVALID_FILENAME');
    expect(literal.json.detail.error.message).toContain("UTF-8''");
    expect((await d.put('plain.md', 'x', { 'x-drive-filename': '100% plain.md' })).status).toBe(200);
    const doc = (await d.get('/openapi.json')).json;
    expect(JSON.stringify(doc.components.schemas.ErrorEnvelope)).toContain('suggested_path');
    expect(JSON.stringify(doc.paths['/v0/folders/{path}/meta'].get.responses['200'])).toContain('implied');
  });

  it('MCP upload refuses the name with the suggested path, keeps filename, and list shows it', async () => {
    const s = await mcpClient(api, (await createTenant(api.ctx)).apiKey);
    try {
      const refused = await s.fail('upload', { path: `notes/${MEETING}`, content: 'x' });
      expect(refused).toMatchObject({ code: 'INVALID_PATH', suggested_path: 'notes/Meeting-notes-draft.md' });
      expect(refused.message).toContain('filename');
      const stored = await s.ok<{ filename: string }>('upload', {
        path: 'notes/Meeting-notes-draft.md',
        filename: MEETING,
        content: 'x',
      });
      expect(stored.filename).toBe(MEETING);
      const listed = await s.ok('list', { prefix: 'notes/' });
      expect(listed._text).toContain(`notes/Meeting-notes-draft.md`);
      expect(listed._text).toContain(`"${MEETING}"`);
      const tools = await s.client.listTools();
      const upload = tools.tools.find((t) => t.name === 'upload')!;
      expect(JSON.stringify(upload.inputSchema)).toContain('A-Za-z0-9_./-');
      // A folder only paths imply reads as one at REST as at lookup.
      const d = await driveClient(api, { ...(await createTenant(api.ctx)) });
      await d.put('implied/a.md', 'a');
      const meta = await d.get('/v0/folders/implied/meta');
      expect(meta.status).toBe(200);
      expect(meta.json).toMatchObject({ implied: true, path: '/implied/' });
    } finally {
      await s.close();
    }
  });

  it('CLI put with an explicit target maps it and says so; ls shows the kept name; cat names the suggested path', async () => {
    const tenant = await createTenant(api.ctx);
    const env = { XDG_CONFIG_HOME: freshConfigHome(), AGENT_DRIVE_URL: api.url, AGENT_DRIVE_API_KEY: tenant.apiKey };
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'names55-')), 'local.md');
    writeFileSync(file, 'bytes');
    const put = await runCli(['--json', 'put', file, `Team notes/${MEETING}`], env);
    expect(put.code, put.stderr).toBe(0);
    expect(put.stderr).toContain(`Team notes/${MEETING} → Team-notes/Meeting-notes-draft.md`);
    expect(JSON.parse(put.stdout)).toMatchObject({ path: 'Team-notes/Meeting-notes-draft.md', filename: MEETING });
    const ls = await runCli(['ls', 'Team-notes/'], env);
    expect(ls.stdout).toContain(`Team-notes/Meeting-notes-draft.md  (uploaded as "${MEETING}")`);
    const cat = await runCli(['cat', `Team notes/${MEETING}`], env);
    expect(cat.code).not.toBe(0);
    expect(cat.stderr).toContain('Team-notes/Meeting-notes-draft.md');
  });
});
