import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { mcpClient, type McpSession } from './helpers.js';

/** A way back from every action, and no answer that sends an MCP client to a URL it cannot open. */
let api: TestApi;
let s: McpSession;

beforeAll(async () => {
  // A small embed cap, so one binary comes embedded and a larger one as a signed URL.
  api = await startTestApi({ MCP_EMBED_MAX_BYTES: '64' });
  s = await mcpClient(api, (await createTenant(api.ctx)).apiKey);
});
afterAll(async () => {
  await s?.close();
  await api?.close();
});

describe('MCP restore, trash and binaries', () => {
  it('delete points at restore; restore by id or by path; the trash is listed', async () => {
    const a = await s.ok<{ art_id: string }>('upload', { path: 'r/a.md', content: 'first' });
    const del = await s.ok<{ artifact: Record<string, unknown>; undo: string }>('delete', { ref: 'r/a.md' });
    expect(del.undo).toBe(`restore(ref="${a.art_id}")`);
    expect(del._text).toContain(`restore(ref="${a.art_id}")`);
    expect(JSON.stringify(del)).not.toContain('/v0/');
    expect((await s.fail('read', { ref: 'r/a.md' })).code).toBe('ARTIFACT_NOT_FOUND');

    const trash = await s.ok<{ items: { art_id: string; deleted_at: string }[]; hint: string }>('list', {
      trash: true,
      prefix: 'r/',
    });
    expect(trash.items.map((i) => i.art_id)).toEqual([a.art_id]);
    expect(trash.items[0].deleted_at).toBeTruthy();
    expect(trash.hint).toContain('restore');
    expect((await s.fail('list', { trash: true, label: ['x'] })).code).toBe('INVALID_ARGUMENT');

    const back = await s.ok<{ art_id: string; path: string; deleted_at: string | null }>('restore', { ref: a.art_id });
    expect(back).toMatchObject({ art_id: a.art_id, path: 'r/a.md', deleted_at: null });
    expect((await s.ok<{ content: string }>('read', { ref: 'r/a.md' })).content).toBe('first');
    expect((await s.fail('restore', { ref: a.art_id })).code).toBe('ARTIFACT_NOT_FOUND');

    // By the path it had, when another artifact now lives there: PATH_OCCUPIED with restore arguments, then rename.
    await s.ok('delete', { ref: a.art_id });
    const b = await s.ok<{ art_id: string }>('upload', { path: 'r/a.md', content: 'second' });
    const occupied = await s.fail('restore', { ref: 'r/a.md' });
    expect(occupied.code).toBe('PATH_OCCUPIED');
    const options = occupied.restore_options as { rename: { ref: string; rename: string }; overwrite: unknown };
    expect(options.overwrite).toEqual({ ref: 'r/a.md', overwrite: true });
    expect(options.rename.rename).toMatch(/^r\/a-restored-.*\.md$/);
    expect(JSON.stringify(occupied)).not.toContain('/v0/');
    expect((await s.fail('restore', { ref: 'r/a.md', rename: 'r/x.md', overwrite: true })).arguments).toEqual([
      'rename',
      'overwrite',
    ]);
    const renamed = await s.ok<{ art_id: string; path: string }>('restore', { ref: 'r/a.md', rename: 'r/old.md' });
    expect(renamed).toMatchObject({ art_id: a.art_id, path: 'r/old.md' });
    // REST's rule: the live occupant of the original path went to the trash (restore_conflict_rename).
    expect((await s.fail('lookup', { ref: b.art_id })).code).toBe('ARTIFACT_NOT_FOUND');
    const over = await s.ok<{ art_id: string; path: string }>('restore', { ref: b.art_id, overwrite: false });
    expect(over).toMatchObject({ art_id: b.art_id, path: 'r/a.md' });
    expect((await s.fail('restore', { ref: 'r/never.md' })).code).toBe('ARTIFACT_NOT_FOUND');

    // A folder delete says how to get its contents back.
    await s.ok('upload', { path: 'f/one.txt', content: '1' });
    const folder = await s.ok<{ undo: string }>('delete', { ref: 'f/', recursive: true });
    expect(folder.undo).toContain('list(trash=true, prefix="f/")');
  });

  it('a binary comes embedded, or as a signed URL that needs no credential', async () => {
    const small = Buffer.from([0, 1, 2, 3, 250, 251]);
    await s.ok('upload', {
      path: 'bin/s.pdf',
      content: small.toString('base64'),
      encoding: 'base64',
      content_type: 'application/pdf',
    });
    const r = await s.raw('read', { ref: 'bin/s.pdf' });
    expect(r.structuredContent).toBeUndefined();
    expect(r.content[1]).toMatchObject({
      type: 'resource',
      resource: { mimeType: 'application/pdf', blob: small.toString('base64') },
    });

    const large = Buffer.alloc(1000, 7);
    await s.ok('upload', {
      path: 'bin/l.bin',
      content: large.toString('base64'),
      encoding: 'base64',
    });
    const l = await s.ok<{ kind: string; download: { url: string; direct: boolean; expires_at: string } }>('read', {
      ref: 'bin/l.bin',
    });
    expect(l.kind).toBe('binary');
    expect(l.download.direct).toBe(true);
    expect(l.download.expires_at).toBeTruthy();
    const fetched = await fetch(l.download.url);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(large)).toBe(true);
  });
});
