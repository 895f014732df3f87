import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { accessTokenFor, registerAnonymous, startIdentityApi, waitFor } from '../identity/helpers.js';
import { mcpClient, type McpSession } from './helpers.js';

/**
 * /mcp driven by the official SDK client over real HTTP: tools/list, every tool's happy path and an error path,
 * isolation.
 */
let api: TestApi;
let a: McpSession;
let b: McpSession;
let tenantA: Awaited<ReturnType<typeof createTenant>>;

const TOOLS = [
  'overview',
  'list',
  'search',
  'find',
  'grep',
  'read',
  'read_version',
  'versions',
  'lookup',
  'upload',
  'move',
  'copy',
  'delete',
  'mkdir',
  'set_metadata',
  'activity',
  'changes',
  'upload_url',
  'edit',
  'share',
  'grant',
  'compile',
  'get_compile',
  'wiki_search',
  'wiki_ls',
  'wiki_grep',
  'restore',
  'runs',
  'undo',
  'lease',
];

beforeAll(async () => {
  api = await startIdentityApi({ MCP_RESULT_MAX_CHARS: '6000' });
  tenantA = await createTenant(api.ctx);
  a = await mcpClient(api, tenantA.apiKey, { 'x-drive-actor': 'agent-a' });
  b = await mcpClient(api, (await createTenant(api.ctx)).apiKey);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await api?.close();
});

describe('MCP endpoint', () => {
  it('lists every tool with a description, schemas and annotations', async () => {
    const { tools } = await a.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(60);
      expect(t.description!.length, t.name).toBeLessThan(300);
      expect(t.inputSchema.type).toBe('object');
      expect(t.inputSchema.additionalProperties, t.name).toBe(false);
      expect(t.outputSchema, t.name).toBeUndefined();
      expect(typeof t.annotations?.readOnlyHint, t.name).toBe('boolean');
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.read.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.delete.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.mkdir.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
  });

  it('refuses a missing or unknown credential with 401 and the protected-resource pointer', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: 'Bearer ad_live_unknown' }] as Record<
      string,
      string
    >[]) {
      const res = await fetch(`${api.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(401);
      const challenge = `Bearer resource_metadata="${api.url}/.well-known/oauth-protected-resource/mcp"`;
      // RFC 6750: a credential sent but not valid is invalid_token; a missing one carries no error code.
      if (headers.authorization) expect(res.headers.get('www-authenticate')).toMatch(/, error="invalid_token"/);
      else expect(res.headers.get('www-authenticate')).toBe(challenge);
      expect(res.headers.get('www-authenticate')!.startsWith(challenge)).toBe(true);
      expect((await res.json()).detail.error.message).toMatch(/^Invalid or revoked agent credential/);
    }
    const get = await fetch(`${api.url}/mcp`, {
      headers: { authorization: `Bearer ${tenantA.apiKey}`, accept: 'text/event-stream' },
    });
    expect(get.status).toBe(405);
  });

  it('accepts identity assertions and access tokens, and MCP activity resets the unclaimed-drive clock', async () => {
    const reg = await registerAnonymous(api);
    const em = api.ctx.orm.em.fork();
    const age = async () =>
      Number(
        (
          await em.execute(`select extract(epoch from now() - last_activity_at) as age from drives where id = ?`, [
            reg.drive_id,
          ])
        )[0].age,
      );
    for (const credential of [reg.identity_assertion, await accessTokenFor(api, reg.identity_assertion)]) {
      await em.execute(`update drives set last_activity_at = now() - interval '1 hour' where id = ?`, [reg.drive_id]);
      const s = await mcpClient(api, credential);
      const o = await s.ok<{ drive: { drive_id: string; claimed: boolean } }>('overview');
      expect(o.drive).toMatchObject({ drive_id: reg.drive_id, claimed: false });
      expect(await age()).toBeLessThan(60);
      await s.close();
    }
  });

  it('upload, lookup, read, versions, read_version, set_metadata', async () => {
    const up = await a.ok<{ art_id: string; version_number: number; content_type: string }>('upload', {
      path: 'notes/a.md',
      content: '# A\nline two\n',
      labels: ['draft'],
    });
    expect(up).toMatchObject({ version_number: 1, content_type: 'text/markdown; charset=utf-8' });
    const v2 = await a.ok<{ version_number: number }>('upload', {
      path: 'notes/a.md',
      content: '# A\nline two\nline three\n',
      change_summary: 'more',
    });
    expect(v2.version_number).toBe(2);
    expect(await a.ok('lookup', { ref: up.art_id })).toMatchObject({
      kind: 'artifact',
      artifact: { path: 'notes/a.md', labels: ['draft'] },
    });
    const r = await a.ok<{ content: string; total_lines: number; kind: string }>('read', { ref: 'notes/a.md' });
    expect(r).toMatchObject({ kind: 'text', content: '# A\nline two\nline three\n', total_lines: 3 });
    expect(r._text).toContain('line three');
    const lines = await a.ok('read', { ref: up.art_id, line_start: 2, line_count: 1 });
    expect(lines).toMatchObject({ content: 'line two\n', line_end: 2, next_line: 3 });
    const versions = await a.ok<{
      items: { version_number: number; change_summary: string | null; actor_name: string | null }[];
    }>('versions', { ref: 'notes/a.md' });
    expect(versions.items.map((v) => v.version_number)).toEqual([2, 1]);
    expect(versions).toMatchObject({ current_version: 2, path: 'notes/a.md' });
    expect(versions.items[0]).toMatchObject({ change_summary: 'more', actor_name: 'agent-a' });
    expect(await a.ok('read_version', { ref: 'notes/a.md', version: 1 })).toMatchObject({
      content: '# A\nline two\n',
      version_number: 1,
    });
    const meta = await a.ok('set_metadata', { ref: 'notes/a.md', labels: ['final'], metadata: { owner: 'x' } });
    expect(meta).toMatchObject({ labels: ['final'], metadata: { owner: 'x' }, version_number: 2 });
    expect((await a.fail('read_version', { ref: 'notes/a.md', version: 9 })).code).toBe('NOT_FOUND');
    expect((await a.fail('set_metadata', { ref: 'notes/a.md', labels: ['Bad Label'] })).code).toBe('INVALID_LABELS');
    expect((await a.fail('set_metadata', { ref: 'notes/a.md', labels: [], if_match: 1 })).code).toBe(
      'PRECONDITION_FAILED',
    );
    // One not-found code per kind, as REST: a path is an artifact's, a path ending in / a folder's.
    for (const tool of ['lookup', 'read', 'versions', 'delete', 'set_metadata'])
      expect((await a.fail(tool, { ref: 'nowhere/x.md' })).code, tool).toBe('ARTIFACT_NOT_FOUND');
    expect((await a.fail('move', { from: 'nowhere/x.md', to: 'y.md' })).code).toBe('ARTIFACT_NOT_FOUND');
    expect((await a.fail('copy', { from: 'nowhere/x.md', to: 'y.md' })).code).toBe('ARTIFACT_NOT_FOUND');
    expect((await a.fail('share', { resource: 'nowhere/x.md' })).code).toBe('ARTIFACT_NOT_FOUND');
    expect((await a.fail('lookup', { ref: 'nowhere/' })).code).toBe('NOT_FOUND');
    expect((await a.fail('versions', { ref: 'nowhere/x.md' })).code).toBe('ARTIFACT_NOT_FOUND');
    expect((await a.fail('read', { ref: 'nowhere/x.md' })).code).toBe('ARTIFACT_NOT_FOUND');
    expect((await a.fail('upload', { path: '_wiki/x.md', content: 'x' })).code).toBe('WIKI_RESERVED');
    expect((await a.fail('upload', { path: 'notes/a.md', content: 'x', if_match: 1 })).code).toBe(
      'PRECONDITION_FAILED',
    );
    expect((await a.fail('upload', { path: 'bin/x', content: '@@@', encoding: 'base64' })).code).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('images come back as image content, binaries as a download URL', async () => {
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
      'base64',
    );
    await a.ok('upload', {
      path: 'img/dot.png',
      content: png.toString('base64'),
      encoding: 'base64',
      content_type: 'image/png',
    });
    const r = await a.raw('read', { ref: 'img/dot.png' });
    expect(r.structuredContent).toBeUndefined();
    expect(r.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png', data: png.toString('base64') });
    await a.ok('upload', {
      path: 'bin/blob.bin',
      content: Buffer.from([0, 1, 2, 3]).toString('base64'),
      encoding: 'base64',
    });
    const bin = await a.raw('read', { ref: 'bin/blob.bin' });
    expect(bin.structuredContent).toBeUndefined();
    const [summary, json] = (bin.content[0] as { text: string }).text.split('\n');
    expect(summary).toMatch(/^\S+ v1 \([^)]*, 4 bytes\): the bytes follow/);
    const record = JSON.parse(json);
    expect(record).toMatchObject({ kind: 'binary', size_bytes: 4 });
    expect(Object.values(record)).not.toContain(null);
    expect(bin.content[1]).toMatchObject({ type: 'resource', resource: { blob: 'AAECAw==' } });
  });

  it('pages a long text by offset within the size cap, and list by cursor', async () => {
    const big = Array.from({ length: 2000 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n');
    await a.ok('upload', { path: 'logs/big.log', content: big });
    let offset = 0;
    let text = '';
    for (let i = 0; i < 100; i++) {
      const r = await a.raw('read', { ref: 'logs/big.log', offset });
      expect(
        JSON.stringify(r.structuredContent).length + (r.content[0] as { text: string }).text.length,
      ).toBeLessThanOrEqual(6000);
      const s = r.structuredContent as { content: string; next_offset: number | null; total_chars: number };
      expect(s.total_chars).toBe(big.length);
      text += s.content;
      if (s.next_offset === null) break;
      offset = s.next_offset;
    }
    expect(text).toBe(big);

    for (let i = 0; i < 5; i++) await a.ok('upload', { path: `page/f${i}.txt`, content: `file ${i}` });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await a.ok<{ items: { path: string }[]; next_cursor: string | null }>('list', {
        prefix: 'page/',
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.items.map((i) => i.path));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(['page/f0.txt', 'page/f1.txt', 'page/f2.txt', 'page/f3.txt', 'page/f4.txt']);
    // A page too big for the cap is shortened, and its cursor continues after the last item shown.
    for (let i = 0; i < 12; i++)
      await a.ok('upload', { path: `fit/f${String(i).padStart(2, '0')}.txt`, content: `file ${i}` });
    const fitted = await a.raw('list', { prefix: 'fit/', limit: 100 });
    expect((fitted.content[0] as { text: string }).text).toContain('shortened');
    const first = fitted.structuredContent as { items: { path: string }[]; next_cursor: string };
    expect(first.items.length).toBeLessThan(12);
    const after = await a.ok<{ items: { path: string }[] }>('list', {
      prefix: 'fit/',
      limit: 100,
      cursor: first.next_cursor,
    });
    expect(after.items[0].path).toBe(`fit/f${String(first.items.length).padStart(2, '0')}.txt`);
    expect((await a.fail('list', { cursor: '!!bad' })).code).toBe('BAD_CURSOR');
  });

  it('copy, move, mkdir, delete for artifacts and folders', async () => {
    const src = await a.ok<{ art_id: string }>('upload', { path: 'w/src.txt', content: 'hello' });
    const copy = await a.ok<{ art_id: string; source: unknown }>('copy', { from: 'w/src.txt', to: 'w/copy.txt' });
    expect(copy.source).toEqual({ refs: [{ type: 'artifact', id: src.art_id }] });
    expect((await a.fail('copy', { from: src.art_id, to: 'w/copy.txt' })).code).toBe('PATH_CONFLICT');
    const moved = await a.ok('move', { from: src.art_id, to: 'w/moved.txt' });
    expect(moved).toMatchObject({
      kind: 'artifact',
      from: 'w/src.txt',
      artifact: { art_id: src.art_id, path: 'w/moved.txt' },
    });
    expect((await a.fail('move', { from: 'w/moved.txt', to: 'w/copy.txt' })).code).toBe('PATH_CONFLICT');
    const folder = await a.ok<{ fld_id: string }>('mkdir', { path: 'w/sub', description: 'sub folder' });
    expect((await a.ok<{ fld_id: string }>('mkdir', { path: 'w/sub' })).fld_id).toBe(folder.fld_id);
    expect((await a.fail('mkdir', { path: 'w/copy.txt' })).code).toBe('FOLDER_PATH_CONFLICT');
    await a.ok('upload', { path: 'w/sub/inner.txt', content: 'inner' });
    expect(await a.ok('move', { from: folder.fld_id, to: 'w/sub2' })).toMatchObject({
      kind: 'folder',
      folder: { path: '/w/sub2/' },
    });
    expect(await a.ok('lookup', { ref: 'w/sub2/inner.txt' })).toMatchObject({ kind: 'artifact' });
    expect((await a.fail('delete', { ref: 'w/sub2/' })).code).toBe('FOLDER_RECURSIVE_REQUIRED');
    expect(await a.ok('delete', { ref: 'w/sub2', recursive: true })).toMatchObject({
      kind: 'folder',
      folder: { n_artifacts_deleted: 1 },
    });
    expect((await a.fail('delete', { ref: 'w/copy.txt', if_match: 7 })).code).toBe('PRECONDITION_FAILED');
    expect(await a.ok('delete', { ref: 'w/copy.txt' })).toMatchObject({
      kind: 'artifact',
      artifact: { path: 'w/copy.txt' },
    });
    expect((await a.fail('delete', { ref: 'w/copy.txt' })).code).toBe('ARTIFACT_NOT_FOUND');
    const events = await a.ok<{ items: { action: string; actor_name: string | null }[] }>('activity', {
      action: 'artifact.renamed',
    });
    expect(events.items[0]).toMatchObject({ action: 'artifact.renamed', actor_name: 'agent-a' });
    expect((await a.fail('activity', { cursor: 'zz!' })).code).toBe('BAD_CURSOR');
  });

  it('overview, grep, search and find', async () => {
    await a.ok('upload', { path: 'g/one.txt', content: 'alpha\nthe zebra crossing\nomega' });
    await a.ok('upload', { path: 'g/two.md', content: 'Zebra stripes\nnothing' });
    const o = await a.ok<{ by_folder: Record<string, number>; recent_activity: unknown[] }>('overview');
    expect(o.by_folder.g).toBe(2);
    expect(o.recent_activity.length).toBeGreaterThan(0);
    const g = await a.ok<{ matches: { path: string; line: number; text: string }[] }>('grep', {
      pattern: 'zebra',
      ignore_case: true,
      prefix: 'g/',
    });
    expect(g.matches).toEqual([
      expect.objectContaining({ path: 'g/one.txt', line: 2, text: 'the zebra crossing' }),
      expect.objectContaining({ path: 'g/two.md', line: 1 }),
    ]);
    const one = await a.ok<{ matches: unknown[]; stopped_by: string; next_cursor: string }>('grep', {
      pattern: 'a',
      prefix: 'g/',
      max_files: 1,
    });
    expect(one.stopped_by).toBe('max_files');
    const rest = await a.ok<{ matches: { path: string }[] }>('grep', {
      pattern: 'a',
      prefix: 'g/',
      cursor: one.next_cursor,
    });
    expect(rest.matches.every((m) => m.path === 'g/two.md')).toBe(true);
    expect((await a.fail('grep', { pattern: '(' })).code).toBe('INVALID_ARGUMENT');
    const hits = await waitFor(async () => {
      const s = await a.ok<{ items: { path: string }[] }>('search', { q: 'zebra', prefix: 'g/' });
      return s.items.length === 2 && s;
    });
    expect(hits.items.map((h) => h.path).sort()).toEqual(['g/one.txt', 'g/two.md']);
    const found = await waitFor(async () => {
      const f = await a.ok<{ items: { path: string; char_start: number }[] }>('find', {
        q: 'zebra crossing',
        mode: 'lexical',
        prefix: 'g/',
      });
      return f.items.length > 0 && f;
    });
    expect(found.items[0].path).toBe('g/one.txt');
    // Hybrid without a provider: lexical only, and the answer's last line says so.
    const hybrid = await a.ok<{ semantic: { status: string } }>('find', { q: 'zebra crossing', prefix: 'g/' });
    expect(hybrid.semantic.status).toBe('off');
    expect(hybrid._text.split('\n').at(-1)).toMatch(/^semantic: off — No embeddings provider .*lexical only/);
    expect((await a.fail('find', { q: 'zebra', mode: 'semantic' })).code).toBe('EMBEDDINGS_NOT_CONFIGURED');
    expect((await a.fail('search', { q: 'x', updated_after: 'yesterday' })).code).toBe('VALIDATION_ERROR');
  });

  it('edit: dry run diff, apply, ambiguity, and If-Match between two editors', async () => {
    await a.ok('upload', { path: 'e/doc.md', content: 'one\ntwo\nthree\ntwo\n' });
    expect((await a.fail('edit', { ref: 'e/doc.md', edits: [{ old_text: 'two', new_text: '2' }] })).code).toBe(
      'EDIT_AMBIGUOUS',
    );
    expect((await a.fail('edit', { ref: 'e/doc.md', edits: [{ old_text: 'four', new_text: '4' }] })).code).toBe(
      'EDIT_NO_MATCH',
    );
    const dry = await a.ok<{ applied: boolean; diff: string }>('edit', {
      ref: 'e/doc.md',
      dry_run: true,
      edits: [{ old_text: 'one', new_text: 'ONE' }],
    });
    expect(dry.applied).toBe(false);
    expect(dry.diff).toContain('-one\n+ONE');
    expect((await a.ok<{ content: string }>('read', { ref: 'e/doc.md' })).content).toBe('one\ntwo\nthree\ntwo\n');
    const done = await a.ok('edit', {
      ref: 'e/doc.md',
      edits: [{ old_text: 'two', new_text: '2', replace_all: true }],
    });
    expect(done).toMatchObject({ applied: true, replacements: 2, base_version: 1, artifact: { version_number: 2 } });
    expect(
      (await a.fail('edit', { ref: 'e/doc.md', if_match: 1, edits: [{ old_text: 'one', new_text: '1' }] })).code,
    ).toBe('PRECONDITION_FAILED');
    // Two editors at once: exactly one wins, the other gets 412 and nothing is overwritten silently.
    const results = await Promise.all([
      a.raw('edit', { ref: 'e/doc.md', edits: [{ old_text: 'three', new_text: 'THREE' }] }),
      b.raw('lookup', { ref: 'e/doc.md' }),
      a.raw('edit', { ref: 'e/doc.md', edits: [{ old_text: 'one', new_text: 'uno' }] }),
    ]);
    const edits = [results[0], results[2]];
    const ok = edits.filter((r) => !r.isError).length;
    const text = await a.ok<{ content: string; version_number: number }>('read', { ref: 'e/doc.md' });
    if (ok === 1)
      expect(JSON.parse((edits.find((r) => r.isError)!.content[0] as { text: string }).text).error.code).toBe(
        'PRECONDITION_FAILED',
      );
    expect(text.version_number).toBe(2 + ok);
    expect(text.content.includes('THREE') || text.content.includes('uno')).toBe(true);
    await a.ok('upload', { path: 'e/pic.bin', content: 'AAEC', encoding: 'base64' });
    expect((await a.fail('edit', { ref: 'e/pic.bin', edits: [{ old_text: 'a', new_text: 'b' }] })).code).toBe(
      'NOT_TEXT',
    );
  });

  it('isolates drives: B never sees or changes A by path or id', async () => {
    const art = await a.ok<{ art_id: string }>('upload', { path: 'secret/plan.md', content: 'top secret zebra' });
    expect((await b.ok<{ items: unknown[] }>('list', { prefix: 'secret/' })).items).toEqual([]);
    for (const ref of ['secret/plan.md', art.art_id]) {
      for (const tool of ['read', 'lookup', 'delete', 'versions', 'set_metadata'])
        expect((await b.fail(tool, { ref, ...(tool === 'set_metadata' ? { labels: [] } : {}) })).code, tool).toBe(
          'ARTIFACT_NOT_FOUND',
        );
      expect((await b.fail('move', { from: ref, to: 'stolen.md' })).code).toBe('ARTIFACT_NOT_FOUND');
      expect((await b.fail('copy', { from: ref, to: 'stolen.md' })).code).toBe('ARTIFACT_NOT_FOUND');
      expect((await b.fail('edit', { ref, edits: [{ old_text: 'top', new_text: 'x' }] })).code).toBe(
        'ARTIFACT_NOT_FOUND',
      );
    }
    expect((await b.ok<{ matches: unknown[] }>('grep', { pattern: 'zebra' })).matches).toEqual([]);
    expect((await b.ok<{ items: unknown[] }>('activity', { art_id: art.art_id })).items).toEqual([]);
    expect((await a.ok<{ content: string; version_number: number }>('read', { ref: art.art_id })).version_number).toBe(
      1,
    );
  });

  it('answers a bad input to every tool with a coded tool error, never a transport failure', async () => {
    for (const name of TOOLS) {
      const bad =
        name === 'overview'
          ? { unexpected: { deeply: 'x'.repeat(10) } }
          : { limit: 'many', ref: 42, path: 7, pattern: 3, q: 9, edits: 'no', from: 1 };
      const r = await a.raw(name, bad);
      expect(r.isError, name).toBe(true);
      const err = JSON.parse((r.content[0] as { text: string }).text).error;
      expect(err.code, name).toBe('VALIDATION_ERROR');
      expect(err.message, name).not.toMatch(/MCP error/);
      expect(err.arguments.length, name).toBeGreaterThan(0);
    }
  });
});
