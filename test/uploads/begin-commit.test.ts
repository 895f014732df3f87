import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { useTestApi } from '../artifacts/client.js';
import { sweepUploadOrphans } from '../../src/uploads/orphans.js';
import { bytes, sha256, uploadClient, uploadClientFor, type UploadClient } from './helpers.js';

let api: TestApi;
let u: UploadClient;
useTestApi({}, (a, d) => {
  api = a;
  u = uploadClientFor(a, d);
});

describe('POST /v0/uploads and commit', () => {
  it('begin returns UploadBeginOut; PUT without Authorization; commit creates the artifact with every frozen field', async () => {
    const data = bytes(70_000);
    const b = await u.begin({
      path: 'big/report.pdf',
      size_bytes: data.length,
      content_type: 'application/pdf',
      labels: ['draft', 'q1'],
      metadata: { run: 7 },
      source: { refs: [{ type: 'url', id: 'https://example.test/x' }] },
      actor_name: 'agent-7',
      change_summary: 'first cut',
    });
    expect(b.status).toBe(200);
    expect(Object.keys(b.json).sort()).toEqual([
      'expires_at',
      'headers',
      'max_bytes',
      'method',
      'upload_id',
      'upload_url',
    ]);
    expect(b.json).toMatchObject({
      method: 'PUT',
      max_bytes: data.length,
      headers: { 'content-type': 'application/pdf', 'content-length': String(data.length) },
    });
    expect(b.json.upload_id).toMatch(/^upl_[0-9a-z]{26}$/);
    expect(b.json.upload_url).toContain(`uploads/${u.driveId}/${b.json.upload_id}`);
    const ttlMs = Date.parse(b.json.expires_at) - Date.now();
    expect(ttlMs).toBeGreaterThan((api.ctx.config.durations.uploadSessionS - 60) * 1000);

    expect(await u.putToUrl(b.json, data)).toBe(200);
    const c = await u.commit(b.json.upload_id);
    expect(c.status).toBe(200);
    expect(c.json).toMatchObject({
      path: 'big/report.pdf',
      size_bytes: data.length,
      hash: sha256(data),
      version_number: 1,
      content_type: 'application/pdf',
      file_type: 'pdf',
      labels: ['draft', 'q1'],
      metadata: { run: 7 },
      source: { refs: [{ type: 'url', id: 'https://example.test/x' }] },
      drive_id: u.driveId,
    });
    const dl = await u.get(`/v0/artifacts/${c.json.art_id}/download`);
    expect(sha256(dl.bytes)).toBe(sha256(data));
    const v = await u.get(`/v0/artifacts/${c.json.art_id}/versions/1`);
    expect(v.json).toMatchObject({ actor_name: 'agent-7', change_summary: 'first cut' });
    const ev = await u.events(`?art_id=${c.json.art_id}`);
    expect(ev.map((e) => [e.action, e.actor_name])).toEqual([['artifact.created', 'agent-7']]);
    expect(await u.objectExists(b.json.upload_id)).toBe(false);
    expect((await u.session(b.json.upload_id))!.state).toBe('committed');
  });

  it('a second commit returns the same record and changes nothing; concurrent commits create one version', async () => {
    const data = bytes(1000);
    const b = (await u.begin({ path: 'twice/x.bin', size_bytes: data.length })).json;
    await u.putToUrl(b, data);
    const [c1, c2] = await Promise.all([u.commit(b.upload_id), u.commit(b.upload_id)]);
    expect([c1.status, c2.status]).toEqual([200, 200]);
    expect(c2.json).toEqual(c1.json);
    const again = await u.commit(b.upload_id);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(c1.json);
    const versions = await u.get(`/v0/artifacts/${c1.json.art_id}/versions`);
    expect(versions.json.items).toHaveLength(1);
    expect(await u.events(`?art_id=${c1.json.art_id}`)).toHaveLength(1);
  });

  it('overwrite through an upload: omitted fields keep, sent ones replace, if_match is checked at commit', async () => {
    const first = await u.put('ow/doc.txt', 'v1', {
      'content-type': 'text/plain',
      'x-drive-labels': 'keep',
      'x-drive-metadata': '{"a":1}',
    });
    const data = bytes(300);
    const b = (await u.begin({ path: 'ow/doc.txt', size_bytes: data.length, metadata: { b: 2 }, if_match: 1 })).json;
    await u.putToUrl(b, data);
    const c = await u.commit(b.upload_id);
    expect(c.json).toMatchObject({
      art_id: first.json.art_id,
      version_number: 2,
      labels: ['keep'],
      metadata: { b: 2 },
      content_type: 'text/plain',
      size_bytes: 300,
    });
    expect((await u.events(`?art_id=${first.json.art_id}&limit=1`))[0].action).toBe('artifact.updated');
  });

  it('412 when the frozen if_match no longer holds at commit; nothing is written', async () => {
    const a = await u.put('im/x', 'one');
    const data = bytes(50);
    const b = (await u.begin({ path: 'im/x', size_bytes: data.length, if_match: 1 })).json;
    await u.putToUrl(b, data);
    await u.put('im/x', 'two');
    const c = await u.commit(b.upload_id);
    expect([c.status, c.code]).toEqual([412, 'PRECONDITION_FAILED']);
    expect((await u.get(`/v0/artifacts/${a.json.art_id}`)).json.version_number).toBe(2);
    const missing = (await u.begin({ path: 'im/none', size_bytes: 1, if_match: 1 })).json;
    await u.putToUrl(missing, bytes(1));
    expect((await u.commit(missing.upload_id)).status).toBe(412);
    expect(await u.artifactsAt('im/none')).toBe(0);
  });

  it("404 for an unknown upload, a malformed id and another drive's upload", async () => {
    expect((await u.commit('upl_0000000000aaaaaaaaaaaaaaaa')).code).toBe('UPLOAD_NOT_FOUND');
    expect((await u.commit('nope')).status).toBe(404);
    const other = await uploadClient(api);
    const b = (await other.begin({ path: 'theirs', size_bytes: 3 })).json;
    await other.putToUrl(b, bytes(3));
    const r = await u.commit(b.upload_id);
    expect([r.status, r.code]).toEqual([404, 'UPLOAD_NOT_FOUND']);
    expect((await other.commit(b.upload_id)).status).toBe(200);
  });

  it("bytes PUT through the URL after commit change nothing and the orphan sweep removes them; an open session's object stays", async () => {
    const data = bytes(5000);
    const b = (await u.begin({ path: 'late/x.bin', size_bytes: data.length })).json;
    expect(await u.putToUrl(b, data)).toBe(200);
    const c = await u.commit(b.upload_id);
    expect(c.status).toBe(200);
    const usage = async () => (await u.get('/v0/drives/me/usage')).json;
    const before = await usage();
    // The presigned URL lives until its expiry; the store takes the bytes, but no session owns them.
    expect(await u.putToUrl(b, bytes(5000))).toBe(200);
    const open = (await u.begin({ path: 'late/open.bin', size_bytes: data.length })).json;
    expect(await u.putToUrl(open, data)).toBe(200);
    await u.putObjectDirect('upl_nosuchsession0000000000000', new Uint8Array(Buffer.from('stray')));

    // (The re-PUT bytes may already be gone: the session workflow closes the key once more after the commit signal.)
    expect(await sweepUploadOrphans(api.ctx, 0, 100_000)).toBeGreaterThanOrEqual(1);
    expect(await u.objectExists(b.upload_id)).toBe(false);
    expect(await u.objectExists('upl_nosuchsession0000000000000')).toBe(false);
    expect(await u.objectExists(open.upload_id)).toBe(true);
    const dl = await u.get(`/v0/artifacts/${c.json.art_id}/download`);
    expect(sha256(dl.bytes)).toBe(sha256(data));
    expect((await usage()).storage.used).toBe(before.storage.used);
    expect((await u.commit(open.upload_id)).status).toBe(200);
  });

  it('409 before anything is uploaded and on a wrong-size object; the session stays open for a correct upload', async () => {
    const data = bytes(4096);
    const b = (await u.begin({ path: 'sz/x.bin', size_bytes: data.length })).json;
    const none = await u.commit(b.upload_id);
    expect([none.status, none.code]).toEqual([409, 'UPLOAD_MISSING']);
    // The signed Content-Length makes the store itself refuse another size through the URL ...
    expect(await u.putToUrl(b, data.subarray(0, 4000))).toBe(403);
    // ... and an object of the wrong size that reached the key anyway is refused at commit.
    await u.putObjectDirect(b.upload_id, data.subarray(0, 4000));
    const wrong = await u.commit(b.upload_id);
    expect([wrong.status, wrong.code]).toEqual([409, 'UPLOAD_SIZE_MISMATCH']);
    expect(wrong.json.detail.error).toMatchObject({ expected_bytes: 4096, uploaded_bytes: 4000 });
    expect(await u.artifactsAt('sz/x.bin')).toBe(0);
    expect((await u.session(b.upload_id))!.state).toBe('begun');
    expect(await u.putToUrl(b, data)).toBe(200);
    const ok = await u.commit(b.upload_id);
    expect([ok.status, ok.json.hash]).toEqual([200, sha256(data)]);
  });

  it('begin is not written to the event log and uses X-Drive-Actor when actor_name is absent', async () => {
    const d = await uploadClient(api);
    const data = bytes(20);
    const b = (await d.begin({ path: 'act/x', size_bytes: data.length }, { 'x-drive-actor': 'header-actor' })).json;
    expect(await d.events()).toHaveLength(0);
    await d.putToUrl(b, data);
    const c = await d.commit(b.upload_id);
    expect((await d.events(`?art_id=${c.json.art_id}`))[0].actor_name).toBe('header-actor');
  });

  it('both endpoints are in /openapi.json with the UploadBeginIn / UploadBeginOut fields', async () => {
    const doc = await (await fetch(`${api.url}/openapi.json`)).json();
    const begin = doc.paths['/v0/uploads'].post;
    expect(Object.keys(begin.requestBody.content['application/json'].schema.properties).sort()).toEqual([
      'actor_name',
      'change_summary',
      'content_type',
      'crc32c',
      'if_match',
      'labels',
      'metadata',
      'path',
      'size_bytes',
      'source',
    ]);
    expect(Object.keys(begin.responses['200'].content['application/json'].schema.properties).sort()).toEqual([
      'expires_at',
      'headers',
      'max_bytes',
      'method',
      'parts',
      'upload_id',
      'upload_url',
    ]);
    expect(doc.paths['/v0/uploads/{upload_id}/commit'].post).toBeDefined();
  });
});
