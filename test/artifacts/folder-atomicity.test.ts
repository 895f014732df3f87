import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { sqlOn, useTestApi, type DriveClient } from './client.js';

let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, dc) => {
  api = a;
  d = dc;
});

/**
 * Proves that folder move and recursive delete are one transaction: a trigger makes the update
 * of one artifact (named "poison") fail half-way, and nothing of the operation may remain.
 */
async function withPoisonTrigger(fn: () => Promise<void>) {
  await sqlOn(
    api,
    `create or replace function artifacts_poison() returns trigger language plpgsql as $$
    begin
      if new.path like '%/poison' and (new.path <> old.path or new.deleted_at is distinct from old.deleted_at) then
        raise exception 'poisoned artifact';
      end if;
      return new;
    end $$`,
  );
  await sqlOn(
    api,
    `create trigger artifacts_poison before update on artifacts for each row execute function artifacts_poison()`,
  );
  try {
    await fn();
  } finally {
    await sqlOn(api, `drop trigger artifacts_poison on artifacts`);
  }
}

describe('folder operations are all-or-nothing', () => {
  it('a move that fails on one artifact leaves every folder, artifact and event as it was', async () => {
    const f = (await d.call('POST', '/v0/folders/atom-src')).json;
    const sub = (await d.call('POST', '/v0/folders/atom-src/sub')).json;
    const a = (await d.put('atom-src/a', 'a')).json;
    await d.put('atom-src/sub/poison', 'p');
    await withPoisonTrigger(async () => {
      const r = await d.call('POST', `/v0/folders/${f.fld_id}/move`, { json: { path: 'atom-dst' } });
      expect(r.status).toBe(500);
    });
    expect((await d.get(`/v0/folders/${f.fld_id}`)).json.path).toBe('/atom-src/');
    expect((await d.get(`/v0/folders/${sub.fld_id}`)).json.path).toBe('/atom-src/sub/');
    expect((await d.get(`/v0/artifacts/${a.art_id}`)).json.path).toBe('atom-src/a');
    expect(await d.events('?action=folder.moved')).toEqual([]);
    expect(await d.events('?action=artifact.renamed')).toEqual([]);
  });

  it('a recursive delete that fails on one artifact trashes nothing', async () => {
    const f = (await d.call('POST', '/v0/folders/atom-del')).json;
    await d.call('POST', '/v0/folders/atom-del/sub');
    const a = (await d.put('atom-del/a', 'a')).json;
    await d.put('atom-del/sub/poison', 'p');
    await withPoisonTrigger(async () => {
      expect((await d.call('DELETE', `/v0/folders/${f.fld_id}?recursive=true`)).status).toBe(500);
    });
    expect((await d.get(`/v0/folders/${f.fld_id}`)).status).toBe(200);
    expect((await d.get('/v0/folders/atom-del/sub')).status).toBe(200);
    expect((await d.get(`/v0/artifacts/${a.art_id}`)).status).toBe(200);
    expect(await d.events('?action=artifact.deleted')).toEqual([]);
    expect((await d.call('DELETE', `/v0/folders/${f.fld_id}?recursive=true`)).json.n_artifacts_deleted).toBe(2);
  });
});
