import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isPortOpen } from '../../scripts/stack/process.js';

/** Runs `scripts/start.ts` (what `npm start` runs) on ports from `base` and its own data folder. */
export function launcherPorts(base: number) {
  return {
    api: base,
    pg: base + 1,
    temporal: base + 2,
    ui: base + 3,
    s3: base + 4,
    temporalHttp: base + 5,
    temporalMetrics: base + 6,
    content: base + 7,
    mailSmtp: base + 8,
    mailWeb: base + 9,
  };
}

export interface Launch {
  proc: ChildProcess;
  ready: Promise<string>;
  output: () => string;
}

export function launch(base: number, dataDir: string, extraEnv: NodeJS.ProcessEnv = {}): Launch {
  const ports = launcherPorts(base);
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
    CONTENT_PORT: String(ports.content),
    MAILDEV_SMTP_PORT: String(ports.mailSmtp),
    MAILDEV_WEB_PORT: String(ports.mailWeb),
    TEMPORAL_TASK_QUEUE: `launcher-${base}`,
    // No worker metrics port: the launcher suites' port ranges sit ten apart.
    WORKER_METRICS_PORT: '0',
    ...extraEnv,
  };
  for (const v of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_UI_URL', 'S3_ENDPOINT', 'PUBLIC_BASE_URL', 'SMTP_URL'])
    delete env[v];
  const proc = spawn(process.execPath, ['--import', 'tsx', path.resolve('scripts/start.ts')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  ready.catch(() => {}); // tests that expect a failure await `exited` instead
  return { proc, ready, output: () => output };
}

export const exited = (proc: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    proc.exitCode !== null || proc.signalCode !== null ? resolve(proc.exitCode) : proc.once('exit', resolve),
  );

export async function openPorts(base: number) {
  const states = await Promise.all(
    Object.entries(launcherPorts(base)).map(async ([name, port]) => [name, await isPortOpen(port)] as const),
  );
  return states.filter(([, open]) => open).map(([name]) => name);
}

function stat(pid: number): { ppid: number; state: string } | undefined {
  try {
    // "pid (comm) state ppid ...": comm may hold spaces, so split after the last ')'.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(ppid), state };
  } catch {
    return undefined;
  }
}

/** Every live descendant of `pid` (children, their children, ...), with command lines. */
export function descendants(pid: number): { pid: number; cmd: string }[] {
  const children = new Map<number, number[]>();
  for (const p of readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)) {
    const s = stat(p);
    if (s) children.set(s.ppid, [...(children.get(s.ppid) ?? []), p]);
  }
  const out: number[] = [];
  const walk = (p: number) => (children.get(p) ?? []).forEach((c) => (out.push(c), walk(c)));
  walk(pid);
  return out.map((p) => ({ pid: p, cmd: cmdline(p) }));
}

export const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
};

/** Live (not zombie) processes among `pids`. */
export const alive = (pids: number[]) =>
  pids.filter((p) => {
    const s = stat(p);
    return s && s.state !== 'Z';
  });

export async function waitUntil(ok: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await ok()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return ok();
}
