import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { driveClient, sqlOn, useTestApi, type DriveClient } from '../artifacts/client.js';

let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, dc) => {
  api = a;
  d = dc;
});

describe('seq: one gap-free sequence per drive', () => {
  it('numbers every event of a drive 1, 2, 3 … in commit order, independently of other drives', async () => {
    const other = await driveClient(api);
    await d.put('seq/a.md', 'a');
    await other.put('x.md', 'x');
    await d.put('seq/a.md', 'a2');
    await d.call('POST', '/v0/folders', { json: { path: 'seq/sub' } });
    const mine = (await d.events('?limit=200')).reverse();
    expect(mine.map((e) => e.seq)).toEqual(mine.map((_, i) => i + 1));
    expect((await other.events()).map((e) => e.seq)).toEqual([1]);
  });

  it('concurrent writers never leave a hole: every seq from 1 to N exists once', async () => {
    const c = await driveClient(api);
    await Promise.all(Array.from({ length: 30 }, (_, i) => c.put(`burst/${i % 5}.md`, `v${i}`)));
    const seqs = (await c.events('?limit=200')).map((e) => e.seq).sort((x, y) => x - y);
    expect(seqs).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('a rolled-back write gives its seq to the next one (no gap)', async () => {
    const c = await driveClient(api);
    await c.put('r/a.md', 'a');
    // A conditional overwrite that fails (412) writes nothing, then a good write follows.
    expect((await c.put('r/a.md', 'b', { 'if-match': '9' })).status).toBe(412);
    await c.put('r/b.md', 'b');
    expect((await c.events()).map((e) => e.seq)).toEqual([2, 1]);
    const [{ event_seq }] = (await sqlOn(api, 'select event_seq from drives where id = ?', [c.driveId])) as {
      event_seq: string;
    }[];
    expect(Number(event_seq)).toBe(2);
  });
});

describe('GET /v0/events?after=', () => {
  it('returns the events after a seq, oldest first, paged by next_cursor', async () => {
    const c = await driveClient(api);
    for (let i = 0; i < 7; i++) await c.put(`page/${i}.md`, String(i));
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `?after=2&limit=2&cursor=${cursor}` : '?after=2&limit=2';
      const page = (await c.get(`/v0/events${q}`)).json;
      seen.push(...page.items.map((e: { seq: number }) => e.seq));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([3, 4, 5, 6, 7]);
    expect((await c.events('?after=7')).length).toBe(0);
    expect((await c.events('?after=0&limit=1'))[0]).toMatchObject({ seq: 1, action: 'artifact.created' });
  });

  it('applies art_id, action and prefix filters together with after', async () => {
    const c = await driveClient(api);
    const a = (await c.put('docs/a.md', '1')).json;
    await c.put('other/b.md', '1');
    await c.put('docs/a.md', '2');
    await c.call('PATCH', `/v0/artifacts/${a.art_id}`, { json: { path: 'moved/a.md' } });
    expect((await c.events('?after=0&prefix=docs/')).map((e) => [e.seq, e.action])).toEqual([
      [1, 'artifact.created'],
      [3, 'artifact.updated'],
      [4, 'artifact.renamed'],
    ]);
    expect((await c.events('?after=1&action=artifact.updated')).map((e) => e.seq)).toEqual([3]);
    expect((await c.events(`?after=0&art_id=${a.art_id}&prefix=moved/`)).map((e) => e.seq)).toEqual([4]);
  });

  it('refuses a negative or non-numeric after with 422, and a bad cursor with 400 BAD_CURSOR', async () => {
    expect((await d.get('/v0/events?after=-1')).status).toBe(422);
    expect((await d.get('/v0/events?after=abc')).status).toBe(422);
    const bad = await d.get('/v0/events?after=1&cursor=eyJzIjoieCJ9');
    expect([bad.status, bad.code]).toEqual([400, 'BAD_CURSOR']);
  });
});
