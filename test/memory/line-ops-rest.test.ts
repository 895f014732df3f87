import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { driveClient, type DriveClient } from '../artifacts/client.js';
import { grant } from '../sharing/helpers.js';
import { mcpClient, type McpSession } from '../mcp/helpers.js';
import { Drive, DriveError } from '../../packages/client/src/index.js';

/**
 * Line operations at the REST door (issue 57): POST /v0/artifacts/{art_id}/edit (edits and insert at a line) and
 * GET /v0/artifacts/{art_id}/text by line range, numbered as the memory tool and MCP `read` number them.
 */
let api: TestApi;
let a: DriveClient;
let b: DriveClient;
let s: McpSession;
let apiKey: string;
beforeAll(async () => {
  api = await startTestApi();
  const tenant = await createTenant(api.ctx);
  a = await driveClient(api, tenant);
  b = await driveClient(api);
  s = await mcpClient(api, tenant.apiKey);
  apiKey = tenant.apiKey;
}, 120_000);
afterAll(async () => {
  await s?.close();
  await api?.close();
});

const edit = (who: DriveClient, artId: string, json: unknown, headers: Record<string, string> = {}) =>
  who.call('POST', `/v0/artifacts/${artId}/edit`, { json, headers });
const bytes = async (artId: string) => (await a.get(`/v0/artifacts/${artId}/download`)).bytes.toString();

describe('POST /v0/artifacts/{art_id}/edit', () => {
  it('applies edits as one new version with its event; a dry run writes nothing', async () => {
    const art = (await a.put('lo/a.md', 'one\ntwo\nthree\n')).json;
    const dry = await edit(a, art.art_id, { edits: [{ old_text: 'two', new_text: 'TWO' }], dry_run: true });
    expect(dry.status, JSON.stringify(dry.json)).toBe(200);
    expect(dry.json).toMatchObject({
      applied: false,
      path: 'lo/a.md',
      base_version: 1,
      replacements: 1,
      artifact: null,
    });
    expect(dry.json.diff).toContain('-two\n+TWO');
    expect((await a.get(`/v0/artifacts/${art.art_id}/versions`)).json.items).toHaveLength(1);
    expect(await bytes(art.art_id)).toBe('one\ntwo\nthree\n');

    const r = await edit(
      a,
      art.art_id,
      { edits: [{ old_text: 'two', new_text: 'TWO' }], change_summary: 'shout' },
      { 'x-drive-actor': 'editor-bot' },
    );
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({ applied: true, base_version: 1, replacements: 1 });
    expect(r.json.artifact).toMatchObject({ art_id: art.art_id, version_number: 2, path: 'lo/a.md' });
    expect(await bytes(art.art_id)).toBe('one\nTWO\nthree\n');
    const events = await a.events(`?art_id=${art.art_id}`);
    expect(events.find((e) => e.metadata.version_number === 2)).toMatchObject({
      action: 'artifact.updated',
      actor_name: 'editor-bot',
    });
    expect((await a.get(`/v0/artifacts/${art.art_id}/versions/2`)).json.change_summary).toBe('shout');
  });

  it('inserts at the top, in the middle and at the end; past the end is 400 with the envelope', async () => {
    const art = (await a.put('lo/i.md', 'a\nb\n')).json;
    expect((await edit(a, art.art_id, { insert_line: 0, insert_text: 'top\n' })).status).toBe(200);
    expect((await edit(a, art.art_id, { insert_line: 2, insert_text: 'mid' })).status).toBe(200);
    const end = await edit(a, art.art_id, {
      insert_line: 4,
      insert_text: 'end',
      edits: [{ old_text: 'b', new_text: 'B' }],
    });
    expect(end.json).toMatchObject({ applied: true, replacements: 1, artifact: { version_number: 4 } });
    expect(await bytes(art.art_id)).toBe('top\na\nmid\nB\nend\n');

    const past = await edit(a, art.art_id, { insert_line: 9, insert_text: 'x' });
    expect(past.status).toBe(400);
    expect(past.json.detail.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(past.json.detail.error.message).toContain('[0, 5]');
    const miss = await edit(a, art.art_id, { edits: [{ old_text: 'nowhere', new_text: 'x' }] });
    expect([miss.status, miss.code]).toEqual([409, 'EDIT_NO_MATCH']);
    expect((await a.get(`/v0/artifacts/${art.art_id}/versions`)).json.items).toHaveLength(4);
  });

  it('If-Match: another version is 412; the current one writes', async () => {
    const art = (await a.put('lo/m.md', 'x\n')).json;
    const stale = await edit(a, art.art_id, { insert_line: 1, insert_text: 'y' }, { 'if-match': '"7"' });
    expect([stale.status, stale.code]).toEqual([412, 'PRECONDITION_FAILED']);
    const ok = await edit(a, art.art_id, { insert_line: 1, insert_text: 'y' }, { 'if-match': '1' });
    expect(ok.json.artifact.version_number).toBe(2);
  });

  it('422 for an insert without its text, an empty body and unknown fields', async () => {
    const art = (await a.put('lo/v.md', 'x\n')).json;
    const noText = await edit(a, art.art_id, { insert_line: 1 });
    expect(noText.status).toBe(422);
    expect(noText.json.detail[0].loc).toEqual(['body', 'insert_text']);
    expect((await edit(a, art.art_id, {})).status).toBe(422);
    expect((await edit(a, art.art_id, { edits: [] })).status).toBe(422);
    expect((await edit(a, art.art_id, { insert_line: 0, insert_text: 'x', path: 'elsewhere.md' })).status).toBe(422);
  });

  it("a viewer grantee is refused (403), a stranger sees 404, an editor writes the owner's artifact", async () => {
    const art = (await a.put('lo/shared.md', 'owner\n')).json;
    const body = { insert_line: 0, insert_text: 'grantee' };
    expect((await edit(b, art.art_id, body)).status).toBe(404);
    const g = await grant(a, art.art_id, { type: 'user', email: b.email }, 'viewer');
    expect(g.status, JSON.stringify(g.json)).toBe(201);
    const viewer = await edit(b, art.art_id, body);
    expect([viewer.status, viewer.code]).toEqual([403, 'PERMISSION_DENIED']);
    expect(await bytes(art.art_id)).toBe('owner\n');
    expect((await a.call('PATCH', `/v0/grants/${g.json.id}`, { json: { role: 'editor' } })).status).toBe(200);
    const editor = await edit(b, art.art_id, body);
    expect(editor.status, JSON.stringify(editor.json)).toBe(200);
    expect(editor.json.artifact).toMatchObject({ drive_id: a.driveId, version_number: 2 });
    expect(await bytes(art.art_id)).toBe('grantee\nowner\n');
  });
});

describe('GET /v0/artifacts/{art_id}/text by lines', () => {
  it('numbers a line range exactly as MCP read and the memory tool view do', async () => {
    const content = 'one\ntwo\n\tthree\nfour\n';
    const art = (await a.put('memories/n.md', content)).json;
    const r = await a.get(`/v0/artifacts/${art.art_id}/text?line_start=2&line_count=2&numbered=true`);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({ text: '     2\ttwo\n     3\t\tthree', line_start: 2, last_line: 3, total_lines: 4 });

    const mcp = await s.ok('read', { ref: art.art_id, line_start: 2, line_count: 2, numbered: true });
    expect(mcp._text.split('\n').slice(1).join('\n')).toBe(r.json.text);
    const view = await a.call('POST', '/v0/memory', {
      json: { command: 'view', path: '/memories/n.md', view_range: [2, 3] },
    });
    expect(view.json.result).toBe(`Here's the content of /memories/n.md with line numbers:\n${r.json.text}`);

    // To the end: the final newline opens no line (MCP read agrees).
    const tail = await a.get(`/v0/artifacts/${art.art_id}/text?line_start=3&numbered=true`);
    expect(tail.json).toMatchObject({ text: '     3\t\tthree\n     4\tfour', last_line: 4 });
    const mcpTail = await s.ok('read', { ref: art.art_id, line_start: 3, numbered: true });
    expect(mcpTail._text.split('\n').slice(1).join('\n')).toBe(tail.json.text);
  });

  it('plain lines by default, the whole text without a range, an empty text past the end; bad values are 422', async () => {
    const art = (await a.put('lo/t.txt', 'a\nb\nc')).json;
    const whole = await a.get(`/v0/artifacts/${art.art_id}/text`);
    expect(whole.json).toMatchObject({ text: 'a\nb\nc', line_start: 1, last_line: 3, total_lines: 3, unit: 1 });
    const mid = await a.get(`/v0/artifacts/${art.art_id}/text?line_start=2&line_count=1&numbered=false`);
    expect(mid.json).toMatchObject({ text: 'b\n', line_start: 2, last_line: 2 });
    const past = await a.get(`/v0/artifacts/${art.art_id}/text?line_start=9`);
    expect(past.json).toMatchObject({ text: '', line_start: 9, last_line: null, total_lines: 3 });
    for (const q of ['numbered=yes', 'line_start=0', 'line_count=0', 'line_count=100001'])
      expect((await a.get(`/v0/artifacts/${art.art_id}/text?${q}`)).status, q).toBe(422);
  });
});

describe('the SDK (Drive.edit, Drive.lines)', () => {
  it('edits by path with If-Match and reads numbered lines', async () => {
    const drive = new Drive({ baseUrl: api.url, credential: { apiKey } });
    await drive.put('lo/sdk.md', 'alpha\nbeta\n');
    const r = await drive.edit('lo/sdk.md', {
      edits: [{ oldText: 'beta', newText: 'BETA' }],
      insertLine: 0,
      insertText: 'head',
      ifMatch: 1,
    });
    expect(r).toMatchObject({ applied: true, replacements: 1, artifact: { version_number: 2 } });
    const lines = await drive.lines('lo/sdk.md', { start: 2, numbered: true });
    expect(lines).toMatchObject({ text: '     2\talpha\n     3\tBETA', line_start: 2, last_line: 3, total_lines: 3 });
    const stale = await drive.edit('lo/sdk.md', { insertLine: 0, insertText: 'x', ifMatch: 1 }).catch((e) => e);
    expect(stale).toBeInstanceOf(DriveError);
    expect((stale as DriveError).code).toBe('PRECONDITION_FAILED');
  });
});
