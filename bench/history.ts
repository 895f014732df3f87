import http from 'node:http';
import { forEachLimited } from '../src/outbox/outbox.js';
import { okJson, timed } from './bench-http.js';
import { percentile, putText, startBenchStack, type BenchStack } from './bench-stack.js';
import { cpuPerRequest, settle, stackCpuMs } from './process-cpu.js';
import { historyBounds } from './history-bounds.js';

/**
 * `npm run bench:history` (issue 38): what runs, revert and as_of cost, through the API process.
 *
 * 1. The write path with and without run recording: BENCH_HISTORY_WRITES (1,000) PUTs from 4 clients on a stack
 *    whose API runs with RUN_RECORDING=false, then on one with it on (the default), each after a warm-up. Prints PUT
 *    p50/p95 and stack CPU per write for both.
 * 2. On the second stack, a drive of BENCH_HISTORY_FILES (10,000) files; a run of 1,000 changes (overwrites under
 *    one X-Drive-Run-Id); then:
 *    - `as_of` listing of the 10,000-file drive at the seq before the run: first page (median of 5) and every page;
 *    - the revert of the 1,000-change run: dry run, then the revert itself (one transaction).
 * 3. The bounds of issue 54 (bench/history-bounds.ts): a 1,000-rename chain's dry run and revert, 20 concurrent
 *    previews against /healthz and another tenant's PUTs, `as_of` at 100,000 events. BENCH_HISTORY_ONLY_BOUNDS=1 runs
 *    only this part (on one stack).
 */
const BASE = Number(process.env.BENCH_PORT_BASE ?? 19960);
const WRITES = Number(process.env.BENCH_HISTORY_WRITES ?? 1000);
const FILES = Number(process.env.BENCH_HISTORY_FILES ?? 10_000);
const RUN_CHANGES = 1000;
const CLIENTS = 4;
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

async function puts(stack: BenchStack, key: string, paths: string[], extra: Record<string, string> = {}) {
  const headers = { authorization: `Bearer ${key}`, ...extra };
  const latencies: number[] = [];
  await forEachLimited(
    Array.from({ length: paths.length }, (_, i) => i),
    CLIENTS,
    async (i) => {
      const sent = performance.now();
      latencies.push(
        (await putText(agent, `${stack.url}/v0/artifacts/${paths[i]}`, headers, `# ${i} ${Math.random()}\n`)) - sent,
      );
    },
  );
  return latencies;
}

async function writePath(recording: boolean, base: number) {
  const stack = await startBenchStack({
    base,
    dataDir: `.data/bench-history-${recording ? 'on' : 'off'}`,
    // test/stack-env.ts allows loopback OAuth clients, which a production-mode API refuses to start with.
    env: { RUN_RECORDING: String(recording), OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: 'false' },
  });
  try {
    const warm = await stack.driveWithKey();
    await puts(
      stack,
      warm.key,
      Array.from({ length: 300 }, (_, i) => `warm/${i}.md`),
    );
    await settle(stack.pids);
    const d = await stack.driveWithKey();
    const before = stack.cpu();
    const lat = await puts(
      stack,
      d.key,
      Array.from({ length: WRITES }, (_, i) => `w/${i}.md`),
    );
    await settle(stack.pids);
    const after = stack.cpu();
    console.log(
      `  run recording ${recording ? 'on ' : 'off'}: PUT p50 ${percentile(lat, 50).toFixed(1)} ms, p95 ` +
        `${percentile(lat, 95).toFixed(1)} ms; stack CPU per write ${(stackCpuMs(before, after) / WRITES).toFixed(2)} ms` +
        ` = ${cpuPerRequest(before, after, WRITES)}`,
    );
    return stack;
  } catch (err) {
    await stack.stop();
    throw err;
  }
}

const call = (stack: BenchStack, key: string, method: string, path: string, body?: unknown) =>
  okJson(stack.url, key, method, path, body);

async function history(stack: BenchStack) {
  const d = await stack.driveWithKey();
  const paths = Array.from({ length: FILES }, (_, i) => `docs/${Math.floor(i / 100)}/${i}.md`);
  const [, seedMs] = await timed(() => puts(stack, d.key, paths, { 'x-drive-run-id': 'seed' }));
  console.log(`  seeded ${FILES} files in ${(seedMs / 1000).toFixed(1)} s`);
  const head = (await call(stack, d.key, 'GET', '/v0/runs/seed?limit=1')) as { last_seq: number };
  const seq = head.last_seq;
  await puts(stack, d.key, paths.slice(0, RUN_CHANGES), { 'x-drive-run-id': 'agent' });

  const firstPage: number[] = [];
  for (let i = 0; i < 5; i++)
    firstPage.push((await timed(() => call(stack, d.key, 'GET', `/v0/artifacts?as_of=${seq}&limit=100`)))[1]);
  let cursor: string | null = null;
  let listed = 0;
  const [, allMs] = await timed(async () => {
    do {
      const q: string = `/v0/artifacts?as_of=${seq}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = (await call(stack, d.key, 'GET', q)) as { items: unknown[]; next_cursor: string | null };
      listed += page.items.length;
      cursor = page.next_cursor;
    } while (cursor);
  });
  const live = (await timed(() => call(stack, d.key, 'GET', `/v0/artifacts?limit=100`)))[1];
  console.log(
    `  as_of listing of a ${FILES}-file drive: first page median ${percentile(firstPage, 50).toFixed(0)} ms ` +
      `(live listing ${live.toFixed(0)} ms); all ${listed} in ${(allMs / 1000).toFixed(1)} s (${Math.ceil(listed / 100)} pages)`,
  );

  const [dry, dryMs] = await timed(() => call(stack, d.key, 'POST', '/v0/runs/agent/revert', { dry_run: true }));
  const [done, revertMs] = await timed(() => call(stack, d.key, 'POST', '/v0/runs/agent/revert', {}));
  const reverted = (done.changes as { outcome: string }[]).filter((c) => c.outcome === 'reverted').length;
  console.log(
    `  revert of a ${RUN_CHANGES}-change run: dry run ${(dryMs / 1000).toFixed(2)} s ` +
      `(${(dry.changes as unknown[]).length} changes), revert ${(revertMs / 1000).toFixed(2)} s (${reverted} reverted)`,
  );
}

async function main() {
  if (process.env.BENCH_HISTORY_ONLY_BOUNDS === '1') {
    const stack = await startBenchStack({ base: BASE + 20, dataDir: '.data/bench-history-bounds' });
    try {
      await historyBounds(stack);
    } finally {
      await stack.stop();
    }
    return;
  }
  console.log(`bench:history (${WRITES} writes per phase, ${CLIENTS} clients)`);
  const off = await writePath(false, BASE);
  await off.stop();
  const on = await writePath(true, BASE + 20);
  try {
    await history(on);
    await historyBounds(on);
  } finally {
    await on.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
