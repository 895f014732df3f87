import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { type DriveClient, useTestApi } from './client.js';

let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, dc) => {
  api = a;
  d = dc;
});

describe('PUT /v0/artifacts/{path}', () => {
  it('creates version 1 with create defaults and the record fields', async () => {
    const r = await d.put('notes/a.md', 'hello', { 'content-type': 'text/markdown' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      path: 'notes/a.md',
      size_bytes: 5,
      version_number: 1,
      labels: [],
      metadata: {},
      source: { refs: [] },
      visibility: 'private',
      content_type: 'text/markdown',
      file_type: 'markdown',
      deleted_at: null,
      purge_at: null,
      drive_id: d.driveId,
    });
    expect(r.json.art_id).toMatch(/^art_[0-9a-z]{26}$/);
    expect(r.json.url).toBe(`${api.ctx.config.http.webUrl}/${d.driveId}/notes/a.md`);
    expect(r.json.hash).toMatch(/^[0-9a-f]{64}$/);
    const noType = await d.put('bin/x', new Uint8Array([1, 2, 3]));
    expect(noType.json.content_type).toBe('application/octet-stream');
    expect(noType.json.file_type).toBe('binary');
  });

  it('overwrite keeps omitted headers, replaces sent ones, empty labels clear, empty source refs replace', async () => {
    const first = await d.put('keep/x.txt', 'v1', {
      'content-type': 'text/plain',
      'x-drive-labels': 'draft,report',
      'x-drive-metadata': '{"a":1}',
      'x-drive-source': '{"refs":[{"type":"url","id":"https://x"}]}',
      'x-drive-visibility': 'public',
    });
    expect(first.json).toMatchObject({
      labels: ['draft', 'report'],
      metadata: { a: 1 },
      visibility: 'public',
      source: { refs: [{ type: 'url', id: 'https://x' }] },
    });
    const kept = await d.put('keep/x.txt', 'v2', { 'x-drive-change-summary': 'second' });
    expect(kept.json).toMatchObject({
      art_id: first.json.art_id,
      version_number: 2,
      labels: ['draft', 'report'],
      metadata: { a: 1 },
      visibility: 'public',
      content_type: 'text/plain',
    });
    expect(kept.json.source.refs).toHaveLength(1);
    const replaced = await d.put('keep/x.txt', 'v3', {
      'x-drive-labels': '',
      'x-drive-metadata': '{"b":2}',
      'x-drive-source': '{"refs":[]}',
      'content-type': 'text/csv',
    });
    expect(replaced.json).toMatchObject({
      version_number: 3,
      labels: [],
      metadata: { b: 2 },
      source: { refs: [] },
      content_type: 'text/csv',
      file_type: 'data',
    });
    const versions = await d.get(`/v0/artifacts/${first.json.art_id}/versions`);
    expect(versions.json.items.map((v: any) => v.version_number)).toEqual([3, 2, 1]);
    expect(versions.json.items[1]).toMatchObject({ change_summary: 'second', size_bytes: 2 });
  });

  it('If-Match: matching version succeeds, mismatch or unknown path is 412, garbage is 400', async () => {
    const a = await d.put('im/a', 'x');
    expect((await d.put('im/a', 'y', { 'if-match': '1' })).json.version_number).toBe(2);
    const stale = await d.put('im/a', 'z', { 'if-match': '"1"' });
    expect(stale.status).toBe(412);
    expect(stale.code).toBe('PRECONDITION_FAILED');
    expect(stale.json.detail.error.current_version).toBe(2);
    expect((await d.put('im/none', 'z', { 'if-match': '1' })).status).toBe(412);
    expect((await d.put('im/a', 'z', { 'if-match': 'abc' })).code).toBe('INVALID_IF_MATCH');
    expect((await d.get(`/v0/artifacts/${a.json.art_id}`)).json.version_number).toBe(2);
  });

  it.each([['a//b'], ['..%2Fx'], ['a/..%2Fb'], ['a/b/'], ['sp ace'], ['x'.repeat(257)], ['we%24ird']])(
    'rejects invalid path %s with 400 INVALID_PATH',
    async (path) => {
      const r = await d.put(path, 'x');
      expect(r.status).toBe(400);
      expect(r.code).toBe('INVALID_PATH');
    },
  );

  it('accepts a 256-char path', async () => {
    expect((await d.put('p'.repeat(256), 'x')).status).toBe(200);
  });

  it('label, metadata, source, visibility and actor rules', async () => {
    expect((await d.put('r/1', 'x', { 'x-drive-labels': 'Upper' })).code).toBe('INVALID_LABELS');
    expect((await d.put('r/1', 'x', { 'x-drive-labels': 'a'.repeat(65) })).code).toBe('INVALID_LABELS');
    expect(
      (await d.put('r/1', 'x', { 'x-drive-labels': Array.from({ length: 17 }, (_, i) => `l${i}`).join(',') })).code,
    ).toBe('INVALID_LABELS');
    expect(
      (await d.put('r/1', 'x', { 'x-drive-labels': Array.from({ length: 16 }, (_, i) => `l${i}`).join(',') })).status,
    ).toBe(200);
    expect((await d.put('r/1', 'x', { 'x-drive-metadata': '[1]' })).code).toBe('INVALID_METADATA');
    expect((await d.put('r/1', 'x', { 'x-drive-metadata': '{bad' })).code).toBe('INVALID_METADATA');
    expect((await d.put('r/1', 'x', { 'x-drive-source': '{"refs":[{"type":"x"}]}' })).code).toBe('INVALID_SOURCE');
    const vis = await d.put('r/1', 'x', { 'x-drive-visibility': 'world' });
    expect([vis.status, vis.code]).toEqual([400, 'BAD_VISIBILITY']);
    expect((await d.put('r/1', 'x', { 'x-drive-actor': 'a'.repeat(65) })).code).toBe('INVALID_ACTOR');
    const ok = await d.put('r/1', 'x', { 'x-drive-actor': 'a'.repeat(64) });
    expect(ok.status).toBe(200);
    const ev = await d.events(`?art_id=${ok.json.art_id}&limit=1`);
    expect(ev[0].actor_name).toBe('a'.repeat(64));
  });

  it('_wiki/ is reserved: 403 WIKI_RESERVED', async () => {
    const r = await d.put('_wiki/entities/x.md', 'x');
    expect([r.status, r.code]).toEqual([403, 'WIKI_RESERVED']);
  });

  it('a JSON artifact body is stored raw, not parsed', async () => {
    const r = await d.put('data/x.json', '{"a": 1}', { 'content-type': 'application/json' });
    expect(r.json.size_bytes).toBe(8);
    const dl = await d.get(`/v0/artifacts/${r.json.art_id}/download`);
    expect(dl.bytes.toString()).toBe('{"a": 1}');
  });
});
