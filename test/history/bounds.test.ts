import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { driveClient, sqlOn, useTestApi, type DriveClient } from '../artifacts/client.js';
import { forEachLimited } from '../../src/outbox/outbox.js';
import { driveState, headSeq, runHeader } from './drive-state.js';

/**
 * History work has bounds (issue 54, finding 1): previews take no row lock, moves run in dependency order, one undo
 * per drive at a time, lock timeouts, replays from checkpoints, and history reads counted in usage.
 */
let api: TestApi;
useTestApi(
  {
    HISTORY_LOCK_TIMEOUT_MS: '400',
    HISTORY_CHECKPOINT_EVERY: '40',
    WRITE_BUDGET_PER_HOUR: '100000',
    WRITE_BUDGET_PER_DRIVE_PER_HOUR: '100000',
  },
  (a) => {
    api = a;
  },
);

const artIdOf = async (d: DriveClient, path: string) =>
  (await d.call('GET', `/v0/artifacts/${path}/meta`)).json.art_id as string;

/** n files c0..c(n-1), then one run that shifts each one path up, from the far end: c(i) → c(i+1). */
async function shiftChain(d: DriveClient, n: number, runId: string) {
  const ids: string[] = new Array<string>(n);
  await forEachLimited(
    Array.from({ length: n }, (_, i) => i),
    4,
    async (i) => {
      const r = await d.put(`chain/c${i}.md`, `file ${i}`, runHeader('seed'));
      expect(r.status).toBe(200);
      ids[i] = r.json.art_id as string;
    },
  );
  for (let i = n - 1; i >= 0; i--) {
    const r = await d.call('PATCH', `/v0/artifacts/${ids[i]}`, {
      json: { path: `chain/c${i + 1}.md` },
      headers: runHeader(runId),
    });
    expect(r.status).toBe(200);
  }
  return ids;
}

describe('history with bounds', () => {
  it('a chain of renames reverts in one pass of dependency order; a swap is path_occupied', async () => {
    const d = await driveClient(api);
    const n = 150;
    await shiftChain(d, n, 'shift');
    const run = (await d.get('/v0/runs/shift')).json;
    const before = await driveState(d, run.first_seq - 1);

    const preview = await d.call('POST', '/v0/runs/shift/revert', { json: { dry_run: true } });
    expect(preview.status).toBe(200);
    expect(preview.json.changes.filter((c: { outcome: string }) => c.outcome === 'reverted')).toHaveLength(n);
    const done = await d.call('POST', '/v0/runs/shift/revert', { json: {} });
    expect(done.status).toBe(200);
    expect(done.json.changes).toEqual(preview.json.changes);
    expect(await driveState(d)).toEqual(before);
    // One rename event per file: the plan moved each once, in order.
    const revertEvents = await d.events(`?run_id=${done.json.revert_run_id}&limit=200`);
    expect(revertEvents.filter((e) => e.action === 'artifact.renamed')).toHaveLength(n);

    // A swap through a third path: each waits for the other, reported as before (nothing moves).
    const a = await artIdOf(d, 'chain/c0.md');
    const b = await artIdOf(d, 'chain/c1.md');
    const h = runHeader('swap');
    await d.call('PATCH', `/v0/artifacts/${a}`, { json: { path: 'chain/tmp.md' }, headers: h });
    await d.call('PATCH', `/v0/artifacts/${b}`, { json: { path: 'chain/c0.md' }, headers: h });
    await d.call('PATCH', `/v0/artifacts/${a}`, { json: { path: 'chain/c1.md' }, headers: h });
    // Previews of one drive are spaced (HISTORY_PREVIEW_SPACING_MS): the revert above may have ended just now.
    let swap = await d.call('POST', '/v0/runs/swap/revert', { json: { dry_run: true } });
    if (swap.status === 429) {
      await new Promise((r) => setTimeout(r, Number(swap.headers.get('retry-after') ?? 1) * 1000));
      swap = await d.call('POST', '/v0/runs/swap/revert', { json: { dry_run: true } });
    }
    expect(swap.status).toBe(200);
    expect(swap.json.changes.map((c: { reason?: string }) => c.reason)).toEqual(['path_occupied', 'path_occupied']);
  });

  it('a preview takes no row lock; the undo waits at most its lock timeout (503), then works once the lock goes', async () => {
    const d = await driveClient(api);
    await d.put('locked.md', 'v1', runHeader('base'));
    await d.put('locked.md', 'v2 by the agent', runHeader('agent'));
    const artId = await artIdOf(d, 'locked.md');
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held!: () => void;
    const holding = new Promise<void>((r) => (held = r));
    // Another writer holds the artifact's row.
    const lockTx = api.ctx.orm.em.fork().transactional(async (tx) => {
      await tx.execute('select 1 from artifacts where id = ? for update', [artId]);
      held();
      await released;
    });
    await holding;
    try {
      const preview = await d.call('POST', '/v0/runs/agent/revert', { json: { dry_run: true } });
      expect(preview.status).toBe(200);
      expect(preview.json.changes[0]).toMatchObject({ steps: ['version'], outcome: 'reverted' });
      const t = performance.now();
      const blocked = await d.call('POST', '/v0/runs/agent/revert', { json: {} });
      expect(performance.now() - t).toBeLessThan(5000);
      expect(blocked.status).toBe(503);
      expect(blocked.code).toBe('SERVICE_BUSY');
      expect(blocked.headers.get('retry-after')).toBeTruthy();
    } finally {
      release();
      await lockTx;
    }
    expect((await d.call('POST', '/v0/runs/agent/revert', { json: {} })).status).toBe(200);
    // Previews write nothing: no event of a preview's run.
    expect((await d.events('?limit=50')).filter((e) => String(e.run_id).startsWith('revert_'))).toHaveLength(1);
  });

  it('one undo, rewind or preview per drive at a time: the others are 429 with Retry-After; other drives go on', async () => {
    const d = await driveClient(api);
    const other = await driveClient(api);
    await shiftChain(d, 120, 'busy');
    await other.put('x.md', 'x', runHeader('other-run'));
    const [mine, theirs] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, () => d.call('POST', '/v0/runs/busy/revert', { json: { dry_run: true } }))),
      other.call('POST', '/v0/runs/other-run/revert', { json: { dry_run: true } }),
    ]);
    const statuses = mine.map((r) => r.status);
    expect(statuses).toContain(200);
    expect(statuses).toContain(429);
    const refused = mine.find((r) => r.status === 429)!;
    expect(refused.code).toBe('RATE_LIMITED');
    expect(refused.json.detail.error.message).toMatch(/already running/);
    expect(refused.json.detail.error.retry_after).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(theirs.status).toBe(200);
    // A preview right after the drive's last one ended waits its spacing (1 s): a loop of previews keeps no core busy.
    const again = await d.call('POST', '/v0/runs/busy/revert', { json: { dry_run: true } });
    expect(again.status).toBe(429);
    expect(again.json.detail.error.message).toMatch(/ended just now/);
    expect(again.headers.get('retry-after')).toBe('1');
    // A rewind of the drive is refused the same way while a revert runs.
    const [revert, rewind] = await Promise.all([
      d.call('POST', '/v0/runs/busy/revert', { json: {} }),
      (async () => {
        await new Promise((r) => setTimeout(r, 5));
        return d.call('POST', '/v0/drives/me/rewind', { json: { to_seq: 1, dry_run: true } });
      })(),
    ]);
    expect(revert.status).toBe(200);
    expect([200, 429]).toContain(rewind.status);
  });

  it('as_of replays from checkpoints: every point answers as before, and the replays keep checkpoints', async () => {
    const d = await driveClient(api);
    const points: { seq: number; state: Record<string, string> }[] = [];
    for (let i = 0; i < 120; i++) {
      const p = `cp/${i % 17}.md`;
      if (i % 9 === 8) await d.call('DELETE', `/v0/artifacts/${p}`);
      else await d.put(p, `write ${i}`, runHeader(`r${Math.floor(i / 30)}`));
      if (i % 30 === 29) points.push({ seq: await headSeq(d), state: await driveState(d) });
    }
    // The first as_of read replays the whole history and keeps checkpoints on the way (every 40 events here).
    for (const p of points) expect(await driveState(d, p.seq)).toEqual(p.state);
    const kept = await sqlOn(api, 'select seq from history_checkpoints where drive_id = ? order by seq', [d.driveId]);
    expect(kept.length).toBeGreaterThanOrEqual(2);
    // Answers read again from the checkpoints are the same.
    for (const p of points.reverse()) expect(await driveState(d, p.seq)).toEqual(p.state);
    // A revert and a rewind built from a checkpoint put back what a full replay would.
    const r2 = (await d.get('/v0/runs/r2')).json;
    const beforeR2 = await driveState(d, r2.first_seq - 1);
    const preview = await d.call('POST', '/v0/runs/r3/revert', { json: { dry_run: true, force: true } });
    expect(preview.status).toBe(200);
    const rewind = await d.call('POST', '/v0/drives/me/rewind', { json: { to_seq: r2.first_seq - 1, force: true } });
    expect(rewind.status).toBe(200);
    expect(await driveState(d)).toEqual(beforeR2);
  });

  it('as_of reads and GET /v0/runs are counted as reads in usage', async () => {
    const d = await driveClient(api);
    await d.put('m.md', 'one', runHeader('m'));
    const seq = await headSeq(d);
    const reads = async () => (await d.get('/v0/drives/me/usage')).json.ops_this_month.reads.used as number;
    const start = await reads();
    expect((await d.get(`/v0/artifacts?as_of=${seq}`)).status).toBe(200);
    expect((await d.get(`/v0/artifacts/m.md/meta?as_of=${seq}`)).status).toBe(200);
    expect((await d.get('/v0/runs')).status).toBe(200);
    expect((await d.get('/v0/runs/m')).status).toBe(200);
    // Four history reads, and the usage read before this one.
    expect((await reads()) - start).toBe(5);
  });
});
