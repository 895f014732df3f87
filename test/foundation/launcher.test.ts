import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPortOpen } from '../../src/stack/process.js';

/**
 * `npm start`'s launcher, run for real on its own ports and data folder: it reaches the ready
 * line, stops cleanly on SIGINT, and when the API process dies it takes every child down with it.
 */
const base = Number(process.env.TEST_PORT_BASE ?? 15400) + 20;
const ports = { api: base, pg: base + 1, temporal: base + 2, ui: base + 3, s3: base + 4, temporalHttp: base + 5, temporalMetrics: base + 6 };
const dataDir = `.data/launcher-${base}`;

function launch(): { proc: ChildProcess; ready: Promise<string> } {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(ports.api),
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(ports.pg),
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    S3_PORT: String(ports.s3),
    TEMPORAL_HTTP_PORT: String(ports.temporalHttp),
    TEMPORAL_METRICS_PORT: String(ports.temporalMetrics),
    TEMPORAL_TASK_QUEUE: `launcher-${base}`,
  };
  for (const v of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_UI_URL', 'S3_ENDPOINT', 'PUBLIC_BASE_URL']) delete env[v];
  const proc = spawn(process.execPath, ['--import', 'tsx', path.resolve('scripts/start.ts')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const ready = new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (chunk) => {
      output += chunk;
      const line = output.split('\n').find((l) => l.startsWith('ready in'));
      if (line) resolve(line);
    });
    proc.stderr!.on('data', (chunk) => (output += chunk));
    proc.once('exit', (code) => reject(new Error(`launcher exited (${code}) before ready:\n${output}`)));
  });
  return { proc, ready };
}

const exited = (proc: ChildProcess) =>
  new Promise<number | null>((resolve) => (proc.exitCode !== null ? resolve(proc.exitCode) : proc.once('exit', resolve)));

async function openPorts() {
  const states = await Promise.all(Object.entries(ports).map(async ([name, port]) => [name, await isPortOpen(port)] as const));
  return states.filter(([, open]) => open).map(([name]) => name);
}

function processesUsing(dir: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', path.resolve(dir)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm start launcher', () => {
  it('reaches the ready line, then Ctrl-C stops every child', async () => {
    const { proc, ready } = launch();
    const line = await ready;
    expect(line).toMatch(new RegExp(`api http://localhost:${ports.api} .*temporal-ui http://127\\.0\\.0\\.1:${ports.ui}`));
    const readyz = await fetch(`http://127.0.0.1:${ports.api}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await fetch(`http://127.0.0.1:${ports.ui}/`).then((r) => r.status)).toBe(200);

    proc.kill('SIGINT');
    expect(await exited(proc)).toBe(0);
    expect(await openPorts()).toEqual([]);
    expect(processesUsing(dataDir)).toEqual([]);
  }, 240_000);

  it('when the API process is killed, the launcher exits and leaves no orphans', async () => {
    const { proc, ready } = launch();
    await ready;
    const apiPid = execFileSync('pgrep', ['-P', String(proc.pid), '-f', 'src/main.ts'], { encoding: 'utf8' }).trim();
    expect(apiPid).toMatch(/^\d+$/);
    process.kill(Number(apiPid), 'SIGKILL');

    expect(await exited(proc)).not.toBe(0);
    expect(await openPorts()).toEqual([]);
    expect(processesUsing(dataDir)).toEqual([]);
  }, 240_000);
});
