import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { driveClient, useTestApi } from '../artifacts/client.js';
import { headSeq } from './drive-state.js';

let api: TestApi;
useTestApi({ WRITE_BUDGET_PER_HOUR: '100000', WRITE_BUDGET_PER_DRIVE_PER_HOUR: '100000' }, (a) => {
  api = a;
});

/** A seeded pseudo-random generator, so a failure replays the same history. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

type Seen = { path: string; hash: string; version_number: number; art_id: string }[];

describe('as_of: the drive at a point of its feed', () => {
  it('listings and reads as_of match what the drive answered then, at 60 random points of a 500-change history', async () => {
    const d = await driveClient(api);
    const rand = rng(38);
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
    const names = Array.from({ length: 30 }, (_, i) => `h/${i % 3 ? 'sub/' : ''}f${i}.txt`);
    const recorded = new Map<number, Seen>();
    const listing = async (): Promise<Seen> =>
      ((await d.get('/v0/artifacts?limit=100&prefix=h/')).json.items as Seen).map((a) => ({
        path: a.path,
        hash: a.hash,
        version_number: a.version_number,
        art_id: a.art_id,
      }));
    let live = await listing();
    for (let i = 0; i < 500; i++) {
      const r = rand();
      let res;
      if (live.length < 5 || r < 0.45) res = await d.put(pick(names), `change ${i} ${rand()}`);
      else if (r < 0.65) res = await d.call('DELETE', `/v0/artifacts/${pick(live).art_id}`);
      else if (r < 0.85) {
        const to = pick(names);
        res = await d.call('PATCH', `/v0/artifacts/${pick(live).art_id}`, { json: { path: to } });
      } else res = await d.call('POST', `/v0/artifacts/${pick(live).art_id}/copy`, { json: { path: pick(names) } });
      // A rename or copy onto a taken path is refused and changes nothing: no event, no point to record.
      if (res.status === 409) continue;
      expect(res.status).toBe(200);
      live = await listing();
      recorded.set(await headSeq(d), live);
    }
    expect(recorded.size).toBeGreaterThan(300);
    const points = [...recorded.keys()].sort(() => rand() - 0.5).slice(0, 60);
    for (const seq of points) {
      const then = (await d.get(`/v0/artifacts?limit=100&prefix=h/&as_of=${seq}`)).json.items as Seen;
      expect(then.map((a) => [a.path, a.hash, a.version_number, a.art_id])).toEqual(
        recorded.get(seq)!.map((a) => [a.path, a.hash, a.version_number, a.art_id]),
      );
      if (!then.length) continue;
      const one = pick(then);
      const meta = await d.get(`/v0/artifacts/${one.path}/meta?as_of=${seq}`);
      expect(meta.json).toMatchObject({ art_id: one.art_id, version_number: one.version_number, hash: one.hash });
      const bytes = await d.get(`/v0/artifacts/${one.art_id}/download?as_of=${seq}`);
      expect(createHash('sha256').update(bytes.bytes).digest('hex')).toBe(one.hash);
    }
  }, 240_000); // 500 writes and 60 recorded states: minutes on a loaded 2-core machine

  it('a point past the newest seq is refused, and an artifact not live then is 404', async () => {
    const d = await driveClient(api);
    await d.put('x.md', 'x');
    const seq = await headSeq(d);
    const past = await d.get(`/v0/artifacts?as_of=${seq + 5}`);
    expect([past.status, past.code, past.json.detail.error.newest_seq]).toEqual([404, 'AS_OF_OUT_OF_RANGE', seq]);
    expect((await d.get(`/v0/artifacts/x.md/meta?as_of=0`)).code).toBe('ARTIFACT_NOT_FOUND');
  });
});
