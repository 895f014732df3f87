import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { guardChild, unguardChild } from './guard.js';
import { describePortOwner, writePidRecord } from './leftovers.js';

/** A child process the launcher owns: started with its output sent to a log file, stopped on shutdown. */
export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Where its output goes (undefined when it is sent to our own stdout/stderr). */
  logFile?: string;
  stop: () => Promise<void>;
}

/**
 * Each child leads its own process group (so stop() reaches its helpers too, and a terminal's
 * Ctrl-C reaches only the launcher, which then stops children in order), is registered with
 * the watchdog (guard.ts) for the exits no handler sees, and, with `pidDir`, leaves a pid file
 * that lets the next run find it if everything else failed (leftovers.ts).
 */
export function spawnManaged(
  name: string,
  command: string,
  args: string[],
  opts: { logDir: string; env?: NodeJS.ProcessEnv; cwd?: string; inheritOutput?: boolean; pidDir?: string },
): ManagedProcess {
  mkdirSync(opts.logDir, { recursive: true });
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const logFile = opts.inheritOutput ? undefined : path.join(opts.logDir, `${name}.log`);
  if (!logFile) {
    child.stdout?.pipe(process.stdout);
    child.stderr?.pipe(process.stderr);
  } else {
    const log = createWriteStream(logFile, { flags: 'a' });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
  }
  const pidFile = opts.pidDir && child.pid ? path.join(opts.pidDir, `${name}.json`) : undefined;
  if (child.pid) {
    guardChild(child.pid);
    if (pidFile) writePidRecord(pidFile, { pid: child.pid, cmd: [command, ...args].join(' ') });
  }
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      if (child.pid) unguardChild(child.pid);
      if (pidFile) rmSync(pidFile, { force: true });
      resolve(code);
    });
    child.once('error', () => resolve(-1));
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      child.kill(signal);
    }
  };
  return {
    name,
    child,
    exited,
    logFile,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
      signalGroup('SIGTERM');
      const killed = setTimeout(() => signalGroup('SIGKILL'), 8000);
      await exited;
      clearTimeout(killed);
    },
  };
}

export async function isPortOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** How long start-up waits for a dependency: sized for a first run on a loaded 2-core machine. */
export function startupTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  return Number(env.STARTUP_TIMEOUT_S ?? 180) * 1000;
}

export interface WaitOptions {
  timeoutMs?: number;
  /** Progress lines every 15 s while waiting; silent when omitted. */
  log?: (m: string) => void;
}

/** Waits until something listens on the port, or fails when the process dies first or time runs out. */
export async function waitForPort(
  port: number,
  proc: ManagedProcess | undefined,
  opts: number | WaitOptions = {},
): Promise<void> {
  const { timeoutMs = startupTimeoutMs(), log } = typeof opts === 'number' ? { timeoutMs: opts } : opts;
  const started = Date.now();
  const deadline = started + timeoutMs;
  const what = `${proc ? `${proc.name} to listen` : 'a listener'} on port ${port}`;
  const see = proc?.logFile ? `; its log: ${proc.logFile}` : '';
  let nextNote = started + 15_000;
  while (Date.now() < deadline) {
    if (await isPortOpen(port)) return;
    if (proc && proc.child.exitCode !== null) {
      throw new Error(`${proc.name} exited with code ${proc.child.exitCode} before listening on ${port}${see}`);
    }
    if (log && Date.now() >= nextNote) {
      log(`still waiting for ${what} (${Math.round((Date.now() - started) / 1000)} s${see})`);
      nextNote += 15_000;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${see} (STARTUP_TIMEOUT_S sets the limit)`,
  );
}

/** Fails fast when a port we are about to bind is taken, naming who holds it, instead of talking to a stranger. */
export async function assertPortFree(port: number, what: string, envVar?: string): Promise<void> {
  if (!(await isPortOpen(port))) return;
  const owner = describePortOwner(port) ?? 'another process';
  throw new Error(
    `port ${port} for ${what} is held by ${owner}, which this run did not start and does not own. ` +
      `Stop it, or choose another port${envVar ? ` with ${envVar}` : ''}.`,
  );
}
