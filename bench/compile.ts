/**
 * Compile latency of a one-page LaTeX document: through the API (POST /v0/projects/{fld}/jobs,
 * then polling GET /v0/jobs/{id} until the PDF artifact is recorded) against running the same
 * latexmk command line directly on the same files, in the same run, alternating. Brings up its own
 * stack under .data/bench-compile on ports 20431-20436 and runs the API and the worker as their own
 * processes, loopback only. Prints the medians and the ratio API / direct.
 *
 *   npm run bench:compile            (BENCH_N, default 5)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildWorkflowBundle } from '../scripts/build-workflows.js';
import { loadConfig } from '../src/lib/config.js';
import { closeContext, createContext } from '../src/platform/context.js';
import { createOrm, migrate } from '../src/db/orm.js';
import { createDrive } from '../src/drives/drives.js';
import { mintApiKey } from '../src/identity/api-keys.js';
import { startStack } from '../scripts/stack/index.js';
import { spawnManaged, waitForPort, type ManagedProcess } from '../scripts/stack/process.js';

const BASE = 20430;
const N = Number(process.env.BENCH_N ?? 5);
const DOC = String.raw`\documentclass{article}
\begin{document}
\section{Benchmark}
A one-page document for the compile benchmark. The quick brown fox jumps over the lazy dog.
\end{document}
`;
const LATEXMK = [
  '-norc',
  '-pdf',
  '-cd',
  '-interaction=nonstopmode',
  '-halt-on-error',
  '-file-line-error',
  '-pdflatex=pdflatex -no-shell-escape -interaction=nonstopmode -halt-on-error -file-line-error %O %S',
  'main.tex',
];

const env = {
  ...process.env,
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  DATA_DIR: '.data/bench-compile',
  EMBEDDED_PG_PORT: String(BASE + 1),
  TEMPORAL_PORT: String(BASE + 2),
  TEMPORAL_UI_PORT: String(BASE + 3),
  S3_PORT: String(BASE + 4),
  TEMPORAL_HTTP_PORT: String(BASE + 5),
  TEMPORAL_METRICS_PORT: String(BASE + 6),
  TEMPORAL_TASK_QUEUE: 'agent-drive-bench-compile',
  WRITE_BUDGET_PER_HOUR: String(1_000_000),
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function direct(): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-latexmk-'));
  try {
    writeFileSync(path.join(dir, 'main.tex'), DOC);
    const t0 = performance.now();
    const r = spawnSync('latexmk', LATEXMK, {
      cwd: dir,
      stdio: 'ignore',
      env: { ...process.env, openout_any: 'p', openin_any: 'p' },
    });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`latexmk exited ${r.status}`);
    return ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  rmSync(env.DATA_DIR, { recursive: true, force: true });
  await buildWorkflowBundle();
  const stack = await startStack(loadConfig(env), (m) => process.stderr.write(`[bench-stack] ${m}\n`), {
    mailCatcher: false,
  });
  const fullEnv = { ...env, ...stack.env } as NodeJS.ProcessEnv;
  const procs: ManagedProcess[] = [];
  let ctx: Awaited<ReturnType<typeof createContext>> | undefined;
  try {
    const orm = await createOrm(fullEnv.DATABASE_URL!, { poolMax: 2 });
    await migrate(orm);
    await orm.close();
    const apiPort = BASE + 10;
    const url = `http://127.0.0.1:${apiPort}`;
    const apiEnv = { ...fullEnv, HOST: '127.0.0.1', PORT: String(apiPort), PUBLIC_BASE_URL: url };
    const logDir = path.resolve(env.DATA_DIR, 'logs');
    procs.push(
      spawnManaged('bench-worker', process.execPath, ['--import', 'tsx', path.resolve('src/worker.ts')], {
        logDir,
        env: apiEnv,
      }),
    );
    const api = spawnManaged('bench-api', process.execPath, ['--import', 'tsx', path.resolve('src/main.ts')], {
      logDir,
      env: apiEnv,
    });
    procs.push(api);
    await waitForPort(apiPort, api);
    ctx = await createContext(loadConfig(apiEnv), 'bench');
    const em = ctx.orm.em.fork();
    const drive = await createDrive(em, { ownerEmail: 'bench@example.test' });
    const { key } = await mintApiKey(em, drive.id, 'bench');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${url}${p}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    const folder = await call('POST', '/v0/folders/bench', {});
    const fld = String(folder.fld_id);
    await fetch(`${url}/v0/artifacts/bench/main.tex`, {
      method: 'PUT',
      headers: { authorization: headers.authorization },
      body: DOC,
    });
    await call('PUT', `/v0/projects/${fld}`, { entrypoint: 'main.tex', engine: 'latex' });

    const viaApi = async () => {
      const t0 = performance.now();
      const job = await call('POST', `/v0/projects/${fld}/jobs`, {});
      for (;;) {
        const j = await call('GET', `/v0/jobs/${String(job.job_id)}`);
        if (j.status === 'succeeded') return performance.now() - t0;
        if (j.status !== 'queued' && j.status !== 'running')
          throw new Error(`job ended ${String(j.status)}: ${JSON.stringify(j.diagnostics)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    // Warm-up: TeX's format and font caches, the worker's first activity, the API's first request.
    direct();
    await viaApi();
    const d: number[] = [];
    const a: number[] = [];
    for (let i = 0; i < N; i++) {
      if (i % 2 === 0) (d.push(direct()), a.push(await viaApi()));
      else (a.push(await viaApi()), d.push(direct()));
    }
    const md = median(d);
    const ma = median(a);
    console.log(`compile of a one-page LaTeX document, ${N} runs each (median, ms)`);
    console.log(`  latexmk directly          ${md.toFixed(0)}   [${d.map((x) => x.toFixed(0)).join(', ')}]`);
    console.log(`  API enqueue → PDF artifact ${ma.toFixed(0)}   [${a.map((x) => x.toFixed(0)).join(', ')}]`);
    console.log(`  ratio API / direct        ${(ma / md).toFixed(2)}×  (overhead ${(ma - md).toFixed(0)} ms)`);
  } finally {
    if (ctx) await closeContext(ctx);
    for (const p of procs.reverse()) await p.stop();
    await stack.stop();
  }
}

await main();
