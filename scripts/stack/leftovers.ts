import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What a crashed earlier run can leave behind, and how we find it: every child we start writes
 * `<dataDir>/run/<name>.json` (pid + command line), the process owning the data folder writes
 * `run/owner.json`, and PostgreSQL keeps its own `postmaster.pid`. A pid counts as ours only while
 * its /proc command line still matches what we recorded, so a recycled pid is never touched.
 */
export interface PidRecord {
  pid: number;
  cmd: string;
}

export const runDir = (dataDir: string) => path.resolve(dataDir, 'run');

export function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return undefined;
  }
}

export function writePidRecord(file: string, record: PidRecord): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(record));
}

function readPidRecord(file: string): PidRecord | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

const isAlive = (r: PidRecord | undefined): r is PidRecord => !!r && commandLine(r.pid) === r.cmd;

/** Fails when another live process owns the data folder; otherwise makes this process its owner. */
export function claimDataDir(dataDir: string): () => void {
  const file = path.join(runDir(dataDir), 'owner.json');
  const owner = readPidRecord(file);
  if (owner?.pid !== process.pid && isAlive(owner)) {
    throw new Error(
      `the data folder ${path.resolve(dataDir)} is in use by a running process (pid ${owner.pid}: ${owner.cmd}). ` +
        `Stop it (kill ${owner.pid}), or give this run its own DATA_DIR and ports.`,
    );
  }
  writePidRecord(file, { pid: process.pid, cmd: commandLine(process.pid) ?? '' });
  return () => {
    if (readPidRecord(file)?.pid === process.pid) rmSync(file, { force: true });
  };
}

async function stopPid(pid: number, signal: NodeJS.Signals, group: boolean, graceMs = 10_000): Promise<void> {
  const send = (sig: NodeJS.Signals) => {
    try {
      process.kill(group ? -pid : pid, sig);
    } catch {
      if (group)
        try {
          process.kill(pid, sig);
        } catch {
          /* already gone */
        }
    }
  };
  send(signal);
  const deadline = Date.now() + graceMs;
  while (commandLine(pid) !== undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  if (commandLine(pid) !== undefined) send('SIGKILL');
}

/**
 * Stops what an earlier run of this data folder left running (its launcher was SIGKILLed together
 * with the watchdog, or the machine's process tree was torn apart). Says what it stops and why.
 */
export async function stopLeftovers(dataDir: string, log: (m: string) => void): Promise<void> {
  const dir = runDir(dataDir);
  if (existsSync(dir)) {
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'owner.json')) {
      const record = readPidRecord(path.join(dir, f));
      if (isAlive(record)) {
        log(`stopping ${f.slice(0, -5)} (pid ${record.pid}), left running by an earlier run that did not exit cleanly`);
        await stopPid(record.pid, 'SIGTERM', true);
      }
      rmSync(path.join(dir, f), { force: true });
    }
  }
  // PostgreSQL's own pid file: its first line is the postmaster's pid.
  const pgPidFile = path.resolve(dataDir, 'postgres', 'postmaster.pid');
  if (existsSync(pgPidFile)) {
    const pid = Number(readFileSync(pgPidFile, 'utf8').split('\n')[0]);
    const cmd = pid ? commandLine(pid) : undefined;
    if (cmd?.includes('postgres') && cmd.includes(path.resolve(dataDir, 'postgres'))) {
      log(`stopping PostgreSQL (pid ${pid}), left running by an earlier run that did not exit cleanly`);
      await stopPid(pid, 'SIGINT', false, 20_000); // SIGINT: PostgreSQL's "fast" shutdown
    }
  }
}

/** Who listens on a TCP port (from /proc/net/tcp* and /proc/<pid>/fd), for a message a person can act on. */
export function describePortOwner(port: number): string | undefined {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[1]?.endsWith(`:${hex}`) && cols[3] === '0A') inodes.add(cols[9]);
    }
  }
  if (!inodes.size) return undefined;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link = '';
      try {
        link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m && inodes.has(m[1])) return `pid ${pid} (${commandLine(Number(pid))?.slice(0, 160) ?? 'unknown command'})`;
    }
  }
  return 'a process this user cannot see';
}
