import http from 'node:http';
import path from 'node:path';
import { registerAnonymousAgent } from '../scripts/agent-client.js';
import { percentile, readStatements, resetStatements, ROLES, startBenchStack } from './bench-stack.js';

/**
 * `npm run bench:hotpath`: the authenticated hot path. Latency of an authenticated no-op
 * (GET /v0/drives/me) with an API key and with an access token, against GET /healthz, interleaved
 * one request at a time (concurrency 1, keep-alive) on the real API process, so both pay the same
 * HTTP, Express and loopback costs. Prints each p50/p95, the no-op's difference to /healthz (goal:
 * within 1 ms at the p50), and the SQL statements each request ran (pg_stat_statements, API role).
 * BENCH_HOTPATH_N sets the rounds (default 2000, after 200 warm-up rounds); BENCH_CPU_PROF=1
 * writes a CPU profile of the API to .data/bench-hotpath/prof.
 */
const BASE = Number(process.env.BENCH_PORT_BASE ?? 19100);
const ROUNDS = Number(process.env.BENCH_HOTPATH_N ?? 2000);
const WARMUP = 200;
const DATA_DIR = '.data/bench-hotpath';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function get(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(url, { method: 'GET', headers, agent }, (res) => {
      res.on('data', () => {});
      res.on('end', () =>
        res.statusCode === 200
          ? resolve(performance.now() - started)
          : reject(new Error(`${url} answered ${res.statusCode}`)),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function main() {
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(DATA_DIR, 'prof')}`] : [];
  const stack = await startBenchStack({ base: BASE, dataDir: DATA_DIR, apiNodeArgs: prof });
  try {
    const { key } = await stack.driveWithKey();
    const cases = [
      { name: 'GET /healthz', path: '/healthz', headers: {} as Record<string, string> },
      { name: 'GET /v0/drives/me (API key)', path: '/v0/drives/me', headers: { authorization: `Bearer ${key}` } },
      {
        name: 'GET /v0/drives/me (access token)',
        path: '/v0/drives/me',
        headers: await registerAnonymousAgent(stack.url),
      },
    ];
    const times = cases.map(() => [] as number[]);
    for (let i = 0; i < WARMUP; i++) for (const c of cases) await get(stack.url + c.path, c.headers);
    // Statements per request, counted apart from the timed rounds (reading them is not free).
    const statements: number[] = [];
    for (const c of cases) {
      await resetStatements(stack.admin);
      for (let i = 0; i < 100; i++) await get(stack.url + c.path, c.headers);
      statements.push(((await readStatements(stack.admin)).byRole.get(ROLES.api) ?? 0) / 100);
    }
    for (let i = 0; i < ROUNDS; i++) {
      // Rotate which case goes first, so none always follows the same one.
      for (let j = 0; j < cases.length; j++) {
        const k = (i + j) % cases.length;
        times[k]!.push(await get(stack.url + cases[k]!.path, cases[k]!.headers));
      }
    }
    const p50s = times.map((t) => percentile(t, 50));
    console.log(`\nhot path: ${ROUNDS} rounds, one request at a time, keep-alive, loopback\n`);
    console.log(`${'case'.padEnd(36)}   p50 ms   p95 ms   p50 − healthz   SQL statements/request`);
    cases.forEach((c, i) => {
      const t = times[i]!;
      console.log(
        `${c.name.padEnd(36)} ${percentile(t, 50).toFixed(3).padStart(8)} ${percentile(t, 95).toFixed(3).padStart(8)} ` +
          `${(p50s[i]! - p50s[0]!).toFixed(3).padStart(14)}   ${statements[i]!.toFixed(2).padStart(8)}`,
      );
    });
    const worst = Math.max(...p50s.slice(1)) - p50s[0]!;
    console.log(
      `\nauthenticated no-op within 1 ms of /healthz at the p50: ${worst <= 1 ? 'yes' : 'NO'} (${worst.toFixed(3)} ms)`,
    );
  } finally {
    agent.destroy();
    await stack.stop();
  }
}

await main();
