import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of this process and every process it started (the embedded stack, the API), grouped
 * by role, from /proc. The benches print it per request, so a ratio comes with where the time went.
 */
const TICK_MS = 10; // USER_HZ is 100 on Linux

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  cpuMs: number;
}

function readProcs(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // comm is in parentheses and may contain spaces: split after the last ')'.
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      // utime + stime, plus cutime + cstime: the CPU of children that have exited (PostgreSQL
      // backends of closed connections), so it stays counted with their parent's role.
      const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      out.push({ pid: Number(name), ppid: Number(fields[1]), comm, cpuMs: ticks * TICK_MS });
    } catch {
      // exited while listing
    }
  }
  return out;
}

export type CpuSnapshot = Map<string, number>;

/** CPU milliseconds used so far, by role: this process, the named child pids, postgres, versitygw, temporal, other. */
export function cpuSnapshot(named: Record<string, number | undefined>): CpuSnapshot {
  const procs = readProcs();
  const children = new Map<number, Proc[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const byPid = new Map(
    Object.entries(named)
      .filter(([, pid]) => pid)
      .map(([role, pid]) => [pid!, role]),
  );
  const totals: CpuSnapshot = new Map();
  const add = (role: string, ms: number) => totals.set(role, (totals.get(role) ?? 0) + ms);
  const visit = (p: Proc, inherited?: string) => {
    const role = byPid.get(p.pid) ?? inherited ?? roleOf(p.comm);
    add(role, p.cpuMs);
    for (const c of children.get(p.pid) ?? []) visit(c, byPid.get(p.pid) ?? inherited);
  };
  const self = procs.find((p) => p.pid === process.pid);
  if (self) {
    add('bench client', self.cpuMs);
    for (const c of children.get(self.pid) ?? []) visit(c);
  }
  return totals;
}

function roleOf(comm: string): string {
  if (comm.startsWith('postgres')) return 'postgres';
  if (comm.startsWith('versitygw')) return 'versitygw';
  if (comm.startsWith('temporal')) return 'temporal';
  return 'other';
}

/** CPU ms per request by role between two snapshots, e.g. "api 4.1 · postgres 2.0 · versitygw 3.3". */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): string {
  const parts: string[] = [];
  let total = 0;
  for (const [role, ms] of after) {
    const d = (ms - (before.get(role) ?? 0)) / Math.max(1, requests);
    total += d;
    if (d >= 0.05) parts.push(`${role} ${d.toFixed(1)}`);
  }
  return `${total.toFixed(1)} ms (${parts.join(' · ')})`;
}

/** CPU ms the stack used between two snapshots: every process but the bench client itself. */
export function stackCpuMs(before: CpuSnapshot, after: CpuSnapshot): number {
  let ms = 0;
  for (const [role, v] of after) if (role !== 'bench client') ms += v - (before.get(role) ?? 0);
  return ms;
}

/**
 * Waits until the stack is idle (under 5% of one core over 250 ms, this process excluded), at most
 * `maxS` seconds. Returns how long it stayed busy: 0 when already idle, else the time up to the
 * start of the idle window. Work a request left behind (the API sends indexing signals after
 * responding; Temporal processes them) is charged to the phase that caused it.
 */
export async function settle(named: Record<string, number | undefined>, maxS = 30): Promise<number> {
  const started = Date.now();
  for (;;) {
    const windowStart = Date.now();
    const before = cpuSnapshot(named);
    await new Promise((r) => setTimeout(r, 250));
    const idle = stackCpuMs(before, cpuSnapshot(named)) < 12.5;
    if (idle || Date.now() - started > maxS * 1000) return (windowStart - started) / 1000;
  }
}
