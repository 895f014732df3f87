import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from './jobs.js';
import { parseLatexLog } from './latex-log.js';
import type { Engine } from './projects.js';

/**
 * Runs a compile engine as a sandboxed child process (docs/decisions.md, Projects and compile jobs):
 * its own session and process group (detached), a data-segment limit (`ulimit -d`, which also
 * bounds mmap'd memory and, unlike `ulimit -v`, lets Node start), a wall-clock limit enforced twice
 * (here, and by `timeout` inside the wrapper, so an engine outlives a killed worker by at most the
 * limit), no network namespace where `unshare -rn` works, LaTeX without shell escape, with
 * `openout_any=p`/`openin_any=p` and `-norc` (a project's latexmkrc is Perl and is never run).
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
  timeoutS: number;
  memoryMb: number;
  signal: AbortSignal;
  /** Called once the process group exists (its leader's pid is the group id). */
  onSpawn?: (pid: number) => void;
}

let netIsolation: boolean | undefined;
/** Whether `unshare -rn` (a user + network namespace, no root needed) works on this machine. */
export function canIsolateNetwork(): boolean {
  netIsolation ??= spawnSync('unshare', ['-rn', 'true'], { stdio: 'ignore', timeout: 5000 }).status === 0;
  return netIsolation;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const TYPST_RUNNER = fileURLToPath(new URL('./typst-runner.mjs', import.meta.url));

function commandOf(r: EngineRequest, pdfPath: string): string[] {
  if (r.engine === 'latex') {
    return [
      'latexmk', '-norc', '-pdf', '-cd', '-interaction=nonstopmode', '-halt-on-error', '-file-line-error',
      '-pdflatex=pdflatex -no-shell-escape -interaction=nonstopmode -halt-on-error -file-line-error %O %S', r.entrypoint,
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
  const script = `ulimit -d ${r.memoryMb * 1024} || exit 97; exec ${isolate}timeout -s KILL ${r.timeoutS + 5} ${inner}`;
  const out = createWriteStream(outputLog);
  await new Promise((res) => out.once('open', res));
  const child = spawn('bash', ['-c', script], {
    cwd: r.dir,
    detached: true,
    stdio: ['ignore', out, out],
    env: {
      PATH: r.searchPath,
      HOME: r.dir,
      LANG: 'C.UTF-8',
      TMPDIR: r.dir,
      openout_any: 'p',
      openin_any: 'p',
      shell_escape: 'f',
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

  const engineOutput = existsSync(outputLog) ? readFileSync(outputLog, 'utf8') : '';
  let log: string;
  let diagnostics: Diagnostic[];
  if (r.engine === 'latex') {
    const texLog = path.join(r.dir, `${stem}.log`);
    log = existsSync(texLog) ? readFileSync(texLog, 'latin1') : engineOutput;
    const entryDir = path.posix.dirname(r.entrypoint);
    diagnostics = parseLatexLog(log, entryDir === '.' ? '' : entryDir);
    if (existsSync(texLog) && engineOutput) log += `\n---- latexmk ----\n${engineOutput}`;
  } else {
    log = engineOutput.split('\n').filter((l) => !l.startsWith('DIAG ')).join('\n');
    diagnostics = engineOutput.split('\n').filter((l) => l.startsWith('DIAG ')).map((l) => JSON.parse(l.slice(5)) as Diagnostic);
  }
  const outcome: EngineOutcome = reason ?? (exitCode === 0 && existsSync(pdfPath) ? 'ok' : 'error');
  if (outcome === 'error' && !diagnostics.some((d) => d.severity === 'error')) {
    const why = exitCode === 97 ? 'the memory limit could not be set' : `the engine exited with code ${exitCode ?? 'signal'}`;
    diagnostics.push({ severity: 'error', file: null, line: null, message: why });
  }
  return { outcome, exitCode, log, diagnostics, pdfPath: outcome === 'ok' ? pdfPath : null, pageCount: null };
}
