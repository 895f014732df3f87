import http from 'node:http';
import { forEachLimited } from '../src/outbox/outbox.js';
import { okJson, timed } from './bench-http.js';
import { percentile, putText, type BenchStack } from './bench-stack.js';

/**
 * `npm run bench:history`, the bounds of issue 54 (finding 1), on a running bench stack:
 *
 * 1. A run of BENCH_HISTORY_RENAMES (1,000) renames, each file shifted one path up from the far end (c999 → c1000,
 *    then c998 → c999, …): its revert must move them back in dependency order. Goal: dry run and revert under 2 s.
 * 2. 20 concurrent previews of that run (clients looping on it, each waiting Retry-After after a 429) while /healthz
 *    and another tenant's PUTs are timed: p95 within 2x of idle. The drive's one-at-a-time gate answers the others
 *    429.
 * 3. `as_of` on a drive of BENCH_HISTORY_EVENTS (100,000) events (1,000 files, then renames written straight into
 *    the events table): the first read (replays everything, keeps checkpoints), the next ones (from a checkpoint).
 *    Goal: under 2 s.
 */
const RENAMES = Number(process.env.BENCH_HISTORY_RENAMES ?? 1000);
const EVENTS = Number(process.env.BENCH_HISTORY_EVENTS ?? 100_000);
const PREVIEWERS = 20;
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

const ok = (stack: BenchStack, key: string, method: string, path: string, body?: unknown) =>
  okJson(stack.url, key, method, path, body);

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** A drive with `n` files and a run `shift` of n renames, each one path up, from the far end. */
async function renameChain(stack: BenchStack, n: number) {
  const d = await stack.driveWithKey();
  const ids: string[] = new Array<string>(n);
  await forEachLimited(
    Array.from({ length: n }, (_, i) => i),
    4,
    async (i) => {
      const res = await fetch(`${stack.url}/v0/artifacts/chain/c${i}.md`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${d.key}`, 'content-type': 'text/markdown' },
        body: `# file ${i}`,
      });
      const r = (await res.json()) as { art_id: string };
      ids[i] = r.art_id;
    },
  );
  for (let i = n - 1; i >= 0; i--) {
    const res = await fetch(`${stack.url}/v0/artifacts/${ids[i]}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${d.key}`, 'content-type': 'application/json', 'x-drive-run-id': 'shift' },
      body: JSON.stringify({ path: `chain/c${i + 1}.md` }),
    });
    if (res.status !== 200) throw new Error(`rename answered ${res.status}`);
    await res.arrayBuffer();
  }
  return d;
}

/** p95 of /healthz and of another tenant's PUTs, each timed from 2 clients for `ms`. */
async function probe(stack: BenchStack, key: string, ms: number) {
  const health: number[] = [];
  const puts: number[] = [];
  const until = performance.now() + ms;
  let i = 0;
  const loop = async (fn: () => Promise<number>, into: number[]) => {
    while (performance.now() < until) into.push(await fn());
  };
  const healthz = async () => {
    const t = performance.now();
    const r = await fetch(`${stack.url}/healthz`);
    await r.arrayBuffer();
    return performance.now() - t;
  };
  const put = async () => {
    const t = performance.now();
    return (
      (await putText(
        agent,
        `${stack.url}/v0/artifacts/probe/${i++ % 200}.md`,
        { authorization: `Bearer ${key}` },
        `# ${i}`,
      )) - t
    );
  };
  await Promise.all([loop(healthz, health), loop(healthz, health), loop(put, puts), loop(put, puts)]);
  return { health: percentile(health, 95), put: percentile(puts, 95), n: health.length + puts.length };
}

/** Previews of the run from `n` clients, each looping until `stop`; counts the answers by status. */
function previewers(stack: BenchStack, key: string, n: number) {
  let stop = false;
  const statuses = new Map<number, number>();
  const done = Promise.all(
    Array.from({ length: n }, async () => {
      while (!stop) {
        const res = await fetch(`${stack.url}/v0/runs/shift/revert`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ dry_run: true }),
        });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        // As the spec asks of a client: a 429 waits its Retry-After (a client that does not is a plain flood).
        if (res.status === 429) await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after')) * 1000));
      }
    }),
  );
  return {
    statuses,
    async end() {
      stop = true;
      await done;
    },
  };
}

async function renames(stack: BenchStack) {
  const [d, seedMs] = await timed(() => renameChain(stack, RENAMES));
  console.log(`  a run of ${RENAMES} chained renames written in ${fmt(seedMs)}`);
  const other = await stack.driveWithKey();
  const idle = await probe(stack, other.key, 10_000);
  const load = previewers(stack, d.key, PREVIEWERS);
  const busy = await probe(stack, other.key, 10_000);
  await load.end();
  const counted = [...load.statuses].map(([s, n]) => `${n}× ${s}`).join(', ');
  console.log(
    `  ${PREVIEWERS} concurrent previews (${counted}): /healthz p95 ${idle.health.toFixed(1)} → ${busy.health.toFixed(1)} ms ` +
      `(${(busy.health / idle.health).toFixed(2)}x), another tenant's PUT p95 ${idle.put.toFixed(1)} → ` +
      `${busy.put.toFixed(1)} ms (${(busy.put / idle.put).toFixed(2)}x)`,
  );
  // A drive's previews are spaced (HISTORY_PREVIEW_SPACING_MS): the timed one comes after the spacing.
  await new Promise((r) => setTimeout(r, 1100));
  const [dry, dryMs] = await timed(() => ok(stack, d.key, 'POST', '/v0/runs/shift/revert', { dry_run: true }));
  const [done, revertMs] = await timed(() => ok(stack, d.key, 'POST', '/v0/runs/shift/revert', {}));
  const reverted = (done.changes as { outcome: string }[]).filter((c) => c.outcome === 'reverted').length;
  console.log(
    `  revert of ${RENAMES} chained renames: dry run ${fmt(dryMs)} (${(dry.changes as unknown[]).length} changes), ` +
      `revert ${fmt(revertMs)} (${reverted} reverted)`,
  );
}

async function asOf(stack: BenchStack) {
  const d = await stack.driveWithKey();
  const files = 1000;
  await forEachLimited(
    Array.from({ length: files }, (_, i) => i),
    4,
    async (i) => {
      await putText(agent, `${stack.url}/v0/artifacts/many/${i}.md`, { authorization: `Bearer ${d.key}` }, `# ${i}`);
    },
  );
  // The rest of the history straight into the events table: renames of those files. The seq trigger is off for it
  // (it updates the drive row per event: 99,000 versions of one row in one transaction); the seqs are set here.
  const fill = async () => {
    const c = await stack.admin.connect();
    try {
      await c.query('begin');
      await c.query('alter table events disable trigger events_assign_seq');
      await c.query(
        `with a as (select array_agg(id order by id) as ids, array_agg(path order by id) as paths
                      from artifacts where drive_id = $1),
              h as (select event_seq from drives where id = $1)
         insert into events (id, drive_id, art_id, action, metadata, seq)
         select 'evt_bench' || g, $1, a.ids[1 + g % $3], 'artifact.renamed',
                jsonb_build_object('from', a.paths[1 + g % $3], 'to', a.paths[1 + g % $3] || '.' || g,
                                   'path', a.paths[1 + g % $3] || '.' || g), h.event_seq + g
           from generate_series(1, $2::int) g, a, h`,
        [d.driveId, EVENTS - files, files],
      );
      await c.query('update drives set event_seq = event_seq + $2 where id = $1', [d.driveId, EVENTS - files]);
      await c.query('alter table events enable trigger events_assign_seq');
      await c.query('commit');
    } catch (err) {
      await c.query('rollback');
      throw err;
    } finally {
      c.release();
    }
  };
  const [, fillMs] = await timed(fill);
  const head = Number(
    (await stack.admin.query('select event_seq from drives where id = $1', [d.driveId])).rows[0].event_seq,
  );
  console.log(`  a drive of ${head} events (${files} files; ${EVENTS - files} renames inserted in ${fmt(fillMs)})`);
  const page = (seq: number) => ok(stack, d.key, 'GET', `/v0/artifacts?as_of=${seq}&limit=100`);
  const [, coldMs] = await timed(() => page(head - 10));
  const kept = Number(
    (await stack.admin.query('select count(*) as n from history_checkpoints where drive_id = $1', [d.driveId])).rows[0]
      .n,
  );
  const warm: number[] = [];
  for (let i = 0; i < 10; i++) warm.push((await timed(() => page(Math.floor(head * (0.1 + 0.09 * i)))))[1]);
  const [, headMs] = await timed(() => page(head));
  console.log(
    `  as_of listing at ${head} events: first read ${fmt(coldMs)} (full replay; kept ${kept} checkpoints), ` +
      `then 10 points median ${fmt(percentile(warm, 50))}, max ${fmt(Math.max(...warm))}; at the head ${fmt(headMs)}`,
  );
}

export async function historyBounds(stack: BenchStack): Promise<void> {
  await renames(stack);
  await asOf(stack);
}
