import { describe, expect, it, onTestFinished } from 'vitest';
import { PostgresSearchEngine } from '../../src/search/postgres-engine.js';
import { sweepSearchIndex } from '../../src/search/sweep.js';
import { purgeArtifacts } from '../../src/files/purge.js';
import type { TestApi } from '../helpers/api.js';
import { sqlOn, useTestApi, type DriveClient } from '../artifacts/client.js';
import { uploadClientFor } from '../uploads/helpers.js';

/**
 * Search follows the artifacts domain end to end, through the real HTTP API and the real worker:
 * write, rename, delete, restore, overwrite, folder move and delete; the sweeper repairs what a
 * damaged index would keep stale; usage counts queries and indexing passes.
 */
let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, c) => ((api = a), (d = c)));

const POLL_MS = 100;
const BOUND_MS = 45_000;

/** Re-asks until `ok` holds, at most BOUND_MS; fails with the last answer otherwise. */
async function until<T>(what: string, ask: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + BOUND_MS;
  let last = await ask();
  while (!ok(last)) {
    if (Date.now() > end)
      throw new Error(`${what}: not reached within ${BOUND_MS} ms; last answer ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
    last = await ask();
  }
  return last;
}

const search = async (q: string) => {
  const r = await d.get(`/v0/search?q=${encodeURIComponent(q)}`);
  expect(r.status).toBe(200);
  return r.json.items as any[];
};
const find = async (q: string) => {
  const r = await d.get(`/v0/find?mode=lexical&q=${encodeURIComponent(q)}`);
  expect(r.status).toBe(200);
  return r.json.items as any[];
};
const paths = (hits: any[]) => hits.map((h) => h.path).sort();
const usage = async () => (await d.get('/v0/drives/me/usage')).json.ops_this_month;

/** ~4 passages of prose (1,200-token chunks), the marker word only near the end, one non-ASCII word early. */
function longText(marker: string): string {
  const filler = 'The committee reviewed the quarterly ledger and noted steady progress across every regional office. ';
  return `Café notes — ${filler.repeat(120)}Finally the ${marker} appendix lists the open items. ${filler.repeat(10)}`;
}

describe('search freshness through the API', () => {
  it('write → rename → delete → restore → overwrite: each change is reflected; find spans slice the bytes', async () => {
    const before = await usage();
    const put = await d.put('fresh/alpha.md', 'zephyrquill marmaladecrest notes', { 'content-type': 'text/markdown' });
    expect(put.status).toBe(200);
    const artId = put.json.art_id as string;

    const found = await until(
      'indexed after PUT',
      () => search('zephyrquill'),
      (h) => h.length === 1,
    );
    expect(found[0]).toMatchObject({
      art_id: artId,
      path: 'fresh/alpha.md',
      file_type: 'markdown',
      version_number: 1,
      url: put.json.url,
      permalink: put.json.permalink,
    });
    expect(found[0].snippet).toContain('<mark>zephyrquill</mark>');

    const renamed = await d.call('PATCH', `/v0/artifacts/${artId}`, { json: { path: 'fresh/renamed/beta.md' } });
    expect(renamed.status).toBe(200);
    // The path is patched in the engine before the PATCH answers.
    expect(paths(await search('zephyrquill'))).toEqual(['fresh/renamed/beta.md']);
    expect(await search('alpha')).toEqual([]);
    expect(paths(await search('beta'))).toEqual(['fresh/renamed/beta.md']);

    expect((await d.call('DELETE', `/v0/artifacts/${artId}`)).status).toBe(200);
    expect(await search('zephyrquill')).toEqual([]);
    expect(await find('zephyrquill')).toEqual([]);

    expect((await d.call('POST', `/v0/artifacts/${artId}/restore`)).status).toBe(200);
    await until(
      'back after restore',
      () => search('zephyrquill'),
      (h) => h.length === 1 && h[0].path === 'fresh/renamed/beta.md',
    );
    await until(
      'passages back after restore',
      () => find('zephyrquill'),
      (h) => h.length === 1,
    );

    const over = await d.put('fresh/renamed/beta.md', longText('quokkablossom'), { 'content-type': 'text/markdown' });
    expect(over.json.version_number).toBe(2);
    await until(
      'new words after overwrite',
      () => search('quokkablossom'),
      (h) => h.length === 1 && h[0].version_number === 2,
    );
    const hits = await until(
      'new passages after overwrite',
      () => find('quokkablossom'),
      (h) => h.length >= 1,
    );
    expect(await search('zephyrquill')).toEqual([]);
    expect(await find('zephyrquill')).toEqual([]);

    const bytes = (await d.get(`/v0/artifacts/${artId}/download`)).bytes.toString('utf8');
    for (const hit of hits) {
      expect(hit.modality).toBe('text');
      expect(bytes.slice(hit.char_start, hit.char_end)).toBe(hit.text);
      expect(hit.text).toContain('quokkablossom');
    }
    expect(hits[0].ord).toBeGreaterThan(0); // the marker is past the first passage, so the offsets are real

    const after = await until('indexing counted', usage, (u) => u.indexing_ops.used >= before.indexing_ops.used + 3);
    // Every /v0/search and /v0/find above was answered and counted (at least the ones after `before`).
    expect(after.retrieval_queries.used).toBeGreaterThanOrEqual(before.retrieval_queries.used + 12);
  });

  it('a folder move re-paths every descendant; a recursive folder delete removes them', async () => {
    expect((await d.call('POST', '/v0/folders/fproj')).status).toBe(201);
    await d.put('fproj/one.txt', 'vellichorn first', { 'content-type': 'text/plain' });
    await d.put('fproj/deep/two.txt', 'vellichorn second', { 'content-type': 'text/plain' });
    await until(
      'both indexed',
      () => search('vellichorn'),
      (h) => h.length === 2,
    );

    expect((await d.call('POST', '/v0/folders/fproj/move', { json: { path: 'fmoved' } })).status).toBe(200);
    expect(paths(await search('vellichorn'))).toEqual(['fmoved/deep/two.txt', 'fmoved/one.txt']);
    expect(await search('fproj')).toEqual([]);
    await until(
      'passages follow the move',
      () => find('vellichorn'),
      (h) => h.length === 2 && h.every((x) => x.path.startsWith('fmoved/')),
    );

    expect((await d.call('DELETE', '/v0/folders/fmoved?recursive=true')).status).toBe(200);
    expect(await search('vellichorn')).toEqual([]);
    expect(await find('vellichorn')).toEqual([]);
  });

  it('copy, large-upload commit and a restore that displaces the occupant', async () => {
    const src = await d.put('fcopy/src.txt', 'pomfritzel original', { 'content-type': 'text/plain' });
    await until(
      'source indexed',
      () => search('pomfritzel'),
      (h) => h.length === 1,
    );
    expect(
      (await d.call('POST', `/v0/artifacts/${src.json.art_id}/copy`, { json: { path: 'fcopy/dup.txt' } })).status,
    ).toBe(200);
    await until(
      'copy indexed',
      () => search('pomfritzel'),
      (h) => h.length === 2,
    );

    const u = uploadClientFor(api, d);
    const body = Buffer.from('brambleflux arrives by large upload');
    const begun = await u.begin({ path: 'fcopy/big.txt', size_bytes: body.length, content_type: 'text/plain' });
    expect(begun.status).toBe(200);
    expect(await u.putToUrl(begun.json, body)).toBe(200);
    expect((await u.commit(begun.json.upload_id)).status).toBe(200);
    await until(
      'upload commit indexed',
      () => search('brambleflux'),
      (h) => h.length === 1 && h[0].path === 'fcopy/big.txt',
    );

    // Trash the source, write a new occupant at its path, then restore over it.
    expect((await d.call('DELETE', `/v0/artifacts/${src.json.art_id}`)).status).toBe(200);
    await d.put('fcopy/src.txt', 'quillodrome occupant', { 'content-type': 'text/plain' });
    await until(
      'occupant indexed',
      () => search('quillodrome'),
      (h) => h.length === 1,
    );
    expect((await d.call('POST', `/v0/artifacts/${src.json.art_id}/restore?overwrite=true`)).status).toBe(200);
    expect(await search('quillodrome')).toEqual([]);
    await until(
      'restored source back',
      () => search('pomfritzel'),
      (h) => h.length === 2,
    );
    expect(await find('quillodrome')).toEqual([]);
  });

  it('a rename to another extension re-reads the content: binary without one, code with .py', async () => {
    const a = await d.put('fext/grimblewort', 'def flibberjig(): return 1', {
      'content-type': 'application/octet-stream',
    });
    // A binary contributes only its path (SPEC 4.2).
    await until(
      'indexed as binary',
      () => search('grimblewort'),
      (h) => h.length === 1 && h[0].file_type === 'binary',
    );
    expect(await search('flibberjig')).toEqual([]);
    await d.call('PATCH', `/v0/artifacts/${a.json.art_id}`, { json: { path: 'fext/grimblewort.py' } });
    const hit = await until(
      'content read as code',
      () => search('flibberjig'),
      (h) => h.length === 1,
    );
    expect(hit[0]).toMatchObject({ path: 'fext/grimblewort.py', file_type: 'code' });
  });

  it('purge removes the document; the consistency check repairs damage from outside: missing document, stale path, trashed and purged artifacts', async () => {
    const engine = new PostgresSearchEngine(process.env.DATABASE_URL!, { poolMax: 1 });
    onTestFinished(() => engine.close());
    const check = () => sweepSearchIndex(api.ctx, { graceS: 0, driveId: d.driveId });
    const drained = () =>
      until(
        'the outbox drained',
        () => sqlOn(api, 'select 1 from outbox where drive_id = ?', [d.driveId]),
        (r) => r.length === 0,
      );
    const a = await d.put('fsweep/doc.txt', 'snorkelwhistle content', { 'content-type': 'text/plain' });
    const artId = a.json.art_id as string;
    await until(
      'indexed',
      () => search('snorkelwhistle'),
      (h) => h.length === 1,
    );
    // The lexical document is searchable first; indexed_at follows once the passages are written too.
    await until(
      'indexed_at set',
      async () => (await d.get(`/v0/artifacts/${artId}`)).json.indexed_at,
      (at) => at !== null,
    );
    await drained();

    // Nothing to repair in a fresh, indexed drive.
    expect(await check()).toEqual({ reindexed: 0, refreshed: 0, removed: 0 });

    await sqlOn(api, 'delete from search_documents where drive_id = ? and art_id = ?', [d.driveId, artId]);
    expect(await search('snorkelwhistle')).toEqual([]);
    expect(await check()).toEqual({ reindexed: 1, refreshed: 0, removed: 0 });
    // While its request waits in the outbox, a second check leaves the artifact alone.
    await until(
      're-indexed from the queued request',
      () => search('snorkelwhistle'),
      (h) => h.length === 1 && h[0].art_id === artId,
    );
    await until(
      'passages back',
      () => find('snorkelwhistle'),
      (h) => h.length === 1,
    );
    await drained();

    await sqlOn(api, `update search_documents set path = 'fsweep/stale.txt' where drive_id = ? and art_id = ?`, [
      d.driveId,
      artId,
    ]);
    expect(await check()).toEqual({ reindexed: 0, refreshed: 1, removed: 0 });
    await until(
      'path repaired',
      () => search('snorkelwhistle'),
      (h) => paths(h).join() === 'fsweep/doc.txt',
    );
    await drained();

    // A document left behind by a trash that bypassed the service.
    await sqlOn(api, `update artifacts set deleted_at = now(), purge_at = now() + interval '1 day' where id = ?`, [
      artId,
    ]);
    expect((await search('snorkelwhistle')).length).toBe(1);
    expect(await check()).toEqual({ reindexed: 0, refreshed: 0, removed: 1 });
    await until(
      'trashed document removed',
      () => search('snorkelwhistle'),
      (h) => h.length === 0,
    );
    expect(await find('snorkelwhistle')).toEqual([]);
    await drained();

    // Purge: removed from the engine at once and through the outbox.
    const doc = {
      driveId: d.driveId,
      artId,
      path: 'fsweep/doc.txt',
      contentType: 'text/plain',
      fileType: 'text',
      labels: [],
      metadata: {},
      updatedAt: new Date(),
      versionNumber: 1,
      preview: 'snorkelwhistle',
    };
    await engine.upsertDocument(doc);
    expect((await search('snorkelwhistle')).length).toBe(1);
    await sqlOn(api, `update artifacts set purge_at = now() - interval '1 second' where id = ?`, [artId]);
    await purgeArtifacts(api.ctx); // the worker's schedule may purge it first; either way the document goes
    await until(
      'purged artifact gone',
      () => search('snorkelwhistle'),
      (h) => h.length === 0,
    );
    expect(await sqlOn(api, 'select 1 from artifacts where id = ?', [artId])).toEqual([]);
    await drained();

    // A document of a purged artifact put back from outside: the check finds the artifact.purged event.
    await engine.upsertDocument(doc);
    expect((await search('snorkelwhistle')).length).toBe(1);
    expect(await check()).toEqual({ reindexed: 0, refreshed: 0, removed: 1 });
    await until(
      'removed again',
      () => search('snorkelwhistle'),
      (h) => h.length === 0,
    );
  });
});
