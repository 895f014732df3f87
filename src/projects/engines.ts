import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { chown, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from './jobs.js';
import { parseLatexLog } from './latex-log.js';
import type { Engine } from './engine-availability.js';

/**
 * Runs a compile engine as a sandboxed child process (docs/decisions.md, Projects and compile jobs):
 * its own session and process group (detached), a data-segment limit (`ulimit -d`, which also
 * bounds mmap'd memory and, unlike `ulimit -v`, lets Node start), a wall-clock limit enforced twice
 * (here, and by `timeout` inside the wrapper, so an engine outlives a killed worker by at most the
 * limit), no network namespace where `unshare -rn` works, LaTeX without shell escape, with
 * `openout_any=p`/`openin_any=p` and `-norc` (a project's latexmkrc is Perl and is never run).
 * Never as root: a root worker hands the scratch directory to `nobody` and runs the engine as it, so
 * the data directory (mode 0700, holding the signing and session secrets) is out of its reach
 * whatever the engine's own path rules allow. Every file it writes is capped (`ulimit -f`), so a
 * write loop cannot fill the disk. Only the logs' tails are read back.
 * Cancel and timeout kill the whole group with SIGKILL.
 */
export type EngineOutcome = 'ok' | 'error' | 'timeout' | 'cancelled';

export interface EngineRun {
  outcome: EngineOutcome;
  exitCode: number | null;
  log: string;
  diagnostics: Diagnostic[];
  /** The PDF, when the engine wrote one and exited 0. */
  pdfPath: string | null;
  pageCount: number | null;
}

export interface EngineRequest {
  engine: Engine;
  /** The PATH the engine is found on and runs with (COMPILE_PATH). */
  searchPath: string;
  /** The scratch directory holding the project's files (the project folder's root). */
  dir: string;
  entrypoint: string;
  /** The PDF's creation date (SOURCE_DATE_EPOCH): the same sources give the same bytes. */
  sourceDateEpoch?: number;
  timeoutS: number;
  memoryMb: number;
  /** Largest file the engine may write (the PDF included). */
  fileMaxMb: number;
  /** How much of each log is read back (its end, where TeX says why it stopped). */
  logMaxBytes: number;
  signal: AbortSignal;
  /** Called once the process group exists (its leader's pid is the group id). */
  onSpawn?: (pid: number) => void;
}

/** The account engines run as when the worker is root: `nobody`. Otherwise the worker's own. */
const ENGINE_USER = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

let netIsolation: boolean | undefined;
/** Whether `unshare -rn` (a user + network namespace, no root needed) works here for the engine's account. */
export function canIsolateNetwork(): boolean {
  netIsolation ??=
    spawnSync('unshare', ['-rn', 'true'], { stdio: 'ignore', timeout: 5000, ...ENGINE_USER }).status === 0;
  return netIsolation;
}

/** Gives the scratch directory and everything in it to the engine's account. */
async function handOver(dir: string): Promise<void> {
  if (!ENGINE_USER) return;
  await chown(dir, ENGINE_USER.uid, ENGINE_USER.gid);
  for (const entry of await readdir(dir, { recursive: true }))
    await chown(path.join(dir, entry), ENGINE_USER.uid, ENGINE_USER.gid);
}

/** The last `maxBytes` of a file, read without loading the rest. */
async function readTail(file: string, maxBytes: number, encoding: BufferEncoding): Promise<string> {
  if (!existsSync(file)) return '';
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buf = Buffer.alloc(length);
    await handle.read(buf, 0, length, size - length);
    return (size > length ? `[log cut to its last ${maxBytes} bytes]\n` : '') + buf.toString(encoding);
  } finally {
    await handle.close();
  }
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const TYPST_RUNNER = fileURLToPath(new URL('./typst-runner.mjs', import.meta.url));

function commandOf(r: EngineRequest, pdfPath: string): string[] {
  if (r.engine === 'latex') {
    return [
      'latexmk',
      '-norc',
      '-pdf',
      '-cd',
      '-interaction=nonstopmode',
      '-halt-on-error',
      '-file-line-error',
      '-pdflatex=pdflatex -no-shell-escape -interaction=nonstopmode -halt-on-error -file-line-error %O %S',
      r.entrypoint,
    ];
  }
  return [process.execPath, TYPST_RUNNER, r.dir, r.entrypoint, pdfPath];
}

/**
 * Waits until no process of the group is left (ESRCH), for at most `limitMs`: where PID 1 does not
 * reap orphans, killed members stay zombies (they hold the group id but run nothing), so the wait is
 * bounded rather than forever.
 */
async function untilGroupGone(pgid: number, limitMs = 3000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await new Promise((res) => setTimeout(res, 20));
  }
}

export async function runEngine(r: EngineRequest): Promise<EngineRun> {
  const stem = r.entrypoint.replace(/\.[^./]*$/, '');
  const pdfPath = path.join(r.dir, `${stem}.pdf`);
  const outputLog = path.join(r.dir, '.engine-output.log');
  const inner = commandOf(r, pdfPath).map(quote).join(' ');
  const isolate = canIsolateNetwork() ? 'unshare -rn ' : '';
  // The backstop limit sits a little past ours, so our own timer normally reports timed_out first.
  const script = `ulimit -d ${r.memoryMb * 1024} && ulimit -f ${r.fileMaxMb * 1024} || exit 97; exec ${isolate}timeout -s KILL ${r.timeoutS + 5} ${inner}`;
  const out = createWriteStream(outputLog);
  await new Promise((res) => out.once('open', res));
  await handOver(r.dir);
  const child = spawn('bash', ['-c', script], {
    cwd: r.dir,
    detached: true,
    ...ENGINE_USER,
    stdio: ['ignore', out, out],
    env: {
      PATH: r.searchPath,
      HOME: r.dir,
      LANG: 'C.UTF-8',
      TMPDIR: r.dir,
      openout_any: 'p',
      openin_any: 'p',
      shell_escape: 'f',
      ...(r.sourceDateEpoch ? { SOURCE_DATE_EPOCH: String(r.sourceDateEpoch), FORCE_SOURCE_DATE: '1' } : {}),
    },
  });
  const pid = child.pid!;
  r.onSpawn?.(pid);
  let reason: EngineOutcome | undefined;
  const killGroup = () => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const stop = (why: EngineOutcome) => {
    reason ??= why;
    killGroup();
  };
  const timer = setTimeout(() => stop('timeout'), r.timeoutS * 1000);
  const onAbort = () => stop('cancelled');
  if (r.signal.aborted) onAbort();
  else r.signal.addEventListener('abort', onAbort, { once: true });
  const exitCode = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  clearTimeout(timer);
  r.signal.removeEventListener('abort', onAbort);
  // Whatever is left of the group (a grandchild that ignored its parent's death) goes too, and the
  // run ends only once the group is gone: a killed member can take a moment to exit, and a job
  // reported cancelled or timed out must not still have a TeX process running.
  killGroup();
  await untilGroupGone(pid);
  out.end();

  const engineOutput = await readTail(outputLog, r.logMaxBytes, 'utf8');
  let log: string;
  let diagnostics: Diagnostic[];
  if (r.engine === 'latex') {
    const texLog = path.join(r.dir, `${stem}.log`);
    log = existsSync(texLog) ? await readTail(texLog, r.logMaxBytes, 'latin1') : engineOutput;
    const entryDir = path.posix.dirname(r.entrypoint);
    diagnostics = parseLatexLog(log, entryDir === '.' ? '' : entryDir);
    if (existsSync(texLog) && engineOutput) log += `\n---- latexmk ----\n${engineOutput}`;
  } else {
    log = engineOutput
      .split('\n')
      .filter((l) => !l.startsWith('DIAG '))
      .join('\n');
    diagnostics = engineOutput
      .split('\n')
      .filter((l) => l.startsWith('DIAG '))
      .map((l) => JSON.parse(l.slice(5)) as Diagnostic);
  }
  const outcome: EngineOutcome = reason ?? (exitCode === 0 && existsSync(pdfPath) ? 'ok' : 'error');
  if (outcome === 'error' && !diagnostics.some((d) => d.severity === 'error')) {
    const why =
      exitCode === 97
        ? 'the memory or file-size limit could not be set'
        : exitCode === 128 + 25
          ? `the engine wrote a file over the ${r.fileMaxMb} MB limit` // SIGXFSZ
          : `the engine exited with code ${exitCode ?? 'signal'}`;
    diagnostics.push({ severity: 'error', file: null, line: null, message: why });
  }
  return { outcome, exitCode, log, diagnostics, pdfPath: outcome === 'ok' ? pdfPath : null, pageCount: null };
}
