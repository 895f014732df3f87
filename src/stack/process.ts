import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** A child process the launcher owns: started with its output sent to a log file, stopped on shutdown. */
export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stop: () => Promise<void>;
}

export function spawnManaged(
  name: string,
  command: string,
  args: string[],
  opts: { logDir: string; env?: NodeJS.ProcessEnv; cwd?: string; inheritOutput?: boolean },
): ManagedProcess {
  mkdirSync(opts.logDir, { recursive: true });
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (opts.inheritOutput) {
    child.stdout?.pipe(process.stdout);
    child.stderr?.pipe(process.stderr);
  } else {
    const log = createWriteStream(path.join(opts.logDir, `${name}.log`), { flags: 'a' });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
  }
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(-1));
  });
  return {
    name,
    child,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 8000);
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

/** Waits until something listens on the port, or fails when the process dies first or time runs out. */
export async function waitForPort(port: number, proc: ManagedProcess | undefined, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await isPortOpen(port)) return;
    if (proc && proc.child.exitCode !== null) {
      throw new Error(`${proc.name} exited with code ${proc.child.exitCode} before listening on ${port}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for port ${port}${proc ? ` (${proc.name})` : ''}`);
}

/** Fails fast when a port we are about to bind is taken, instead of talking to a stranger. */
export async function assertPortFree(port: number, what: string): Promise<void> {
  if (await isPortOpen(port)) throw new Error(`port ${port} for ${what} is already in use (another instance running? set a different port)`);
}
