import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { type DriveClient, useTestApi } from './client.js';

let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, dc) => {
  api = a;
  d = dc;
});

describe('edge rules', () => {
  it('copy: unknown or trashed source 404, bad target 400, _wiki/ target 403', async () => {
    expect(
      (await d.call('POST', '/v0/artifacts/art_00000000000000000000000000/copy', { json: { path: 'x' } })).code,
    ).toBe('ARTIFACT_NOT_FOUND');
    const a = (await d.put('e/src', 's')).json;
    expect((await d.call('POST', `/v0/artifacts/${a.art_id}/copy`, { json: { path: 'a//b' } })).code).toBe(
      'INVALID_PATH',
    );
    expect((await d.call('POST', `/v0/artifacts/${a.art_id}/copy`, { json: { path: '_wiki/x' } })).code).toBe(
      'WIKI_RESERVED',
    );
    await d.call('DELETE', `/v0/artifacts/${a.art_id}`);
    expect((await d.call('POST', `/v0/artifacts/${a.art_id}/copy`, { json: { path: 'e/dst' } })).status).toBe(404);
  });

  it('trashed artifacts are invisible to every read: get, meta, download, versions, download-url, list', async () => {
    const a = (await d.put('e/gone', 'g')).json;
    await d.call('DELETE', `/v0/artifacts/${a.art_id}`);
    for (const p of [
      `/v0/artifacts/${a.art_id}`,
      `/v0/artifacts/${a.art_id}/meta`,
      '/v0/artifacts/e/gone/meta',
      `/v0/artifacts/${a.art_id}/download`,
      `/v0/artifacts/${a.art_id}/versions`,
      `/v0/artifacts/${a.art_id}/versions/1`,
      `/v0/artifacts/${a.art_id}/versions/1/download`,
      `/v0/artifacts/${a.art_id}/download-url`,
      '/v0/artifacts/e/gone/download-url',
    ]) {
      expect([p, (await d.get(p)).status]).toEqual([p, 404]);
    }
    expect((await d.get('/v0/artifacts?prefix=e/gone')).json.items).toEqual([]);
  });

  it('labels are de-duplicated and trimmed; a change summary over 1000 chars is refused', async () => {
    expect((await d.put('e/l', 'x', { 'x-drive-labels': ' a, b ,a,' })).json.labels).toEqual(['a', 'b']);
    expect((await d.put('e/l', 'x', { 'x-drive-change-summary': 's'.repeat(1001) })).code).toBe(
      'INVALID_CHANGE_SUMMARY',
    );
  });

  it('folders: unknown id or path is 404 for get, patch, delete and move; deleting twice is 404', async () => {
    const unknown = 'fld_00000000000000000000000000';
    expect((await d.get(`/v0/folders/${unknown}`)).code).toBe('NOT_FOUND');
    expect((await d.call('PATCH', `/v0/folders/${unknown}`, { json: {} })).status).toBe(404);
    expect((await d.call('DELETE', '/v0/folders/no/such')).status).toBe(404);
    expect((await d.call('POST', '/v0/folders/no/such/move', { json: { path: 'x' } })).status).toBe(404);
    const f = (await d.call('POST', '/v0/folders/e-twice')).json;
    expect((await d.call('DELETE', `/v0/folders/${f.fld_id}`)).status).toBe(200);
    expect((await d.call('DELETE', `/v0/folders/${f.fld_id}`)).status).toBe(404);
    const again = await d.call('POST', '/v0/folders/e-twice');
    expect(again.json.fld_id).not.toBe(f.fld_id);
  });

  it('the OpenAPI document lists the artifact, folder, drive and event operations', async () => {
    const doc = await (await fetch(`${api.url}/openapi.json`)).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v0/artifacts',
        '/v0/artifacts/{path}',
        '/v0/artifacts/{art_id}',
        '/v0/artifacts/{art_id}/versions/{version_number}/download',
        '/v0/artifacts/{path}/download-url',
        '/v0/folders/{fld_id}/move',
        '/v0/drives/{drive_id}/trash',
        '/v0/events',
      ]),
    );
    expect(doc.paths['/v0/artifacts/{path}'].put.requestBody.content['application/octet-stream']).toBeDefined();
  });

  it('every /v0 artifact route needs a bearer credential', async () => {
    for (const [method, p] of [
      ['GET', '/v0/artifacts'],
      ['PUT', '/v0/artifacts/x'],
      ['GET', '/v0/events'],
      ['POST', '/v0/folders/x'],
      ['GET', `/v0/drives/${d.driveId}/trash`],
    ]) {
      const res = await fetch(`${api.url}${p}`, { method, body: method === 'PUT' ? 'x' : undefined });
      expect([p, res.status]).toEqual([p, 401]);
    }
  });
});

describe('service functions other features use', () => {
  it('findArtifactRecord checks the drive; readVersionBytes returns the bytes of any version', async () => {
    const { findArtifactRecord } = await import('../../src/records/artifact-records.js');
    const { readVersionBytes } = await import('../../src/files/versions.js');
    const a = (await d.put('svc/a', 'one')).json;
    await d.put('svc/a', 'two');
    expect((await findArtifactRecord(api.ctx, d.driveId, a.art_id))?.version_number).toBe(2);
    expect(await findArtifactRecord(api.ctx, 'drv_other', a.art_id)).toBeNull();
    expect((await readVersionBytes(api.ctx, d.driveId, a.art_id, 1)).toString()).toBe('one');
    await expect(readVersionBytes(api.ctx, 'drv_other', a.art_id, 1)).rejects.toMatchObject({ status: 404 });
    await d.call('DELETE', `/v0/artifacts/${a.art_id}`);
    expect(await findArtifactRecord(api.ctx, d.driveId, a.art_id)).toBeNull();
    expect((await findArtifactRecord(api.ctx, d.driveId, a.art_id, { includeTrashed: true }))?.deleted_at).toEqual(
      expect.any(String),
    );
  });
});
