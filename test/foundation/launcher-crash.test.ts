import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, descendants, exited, launch, launcherPorts, openPorts, waitUntil } from './launcher-helpers.js';

/**
 * The launcher's exits that no handler sees: SIGKILL of the launcher (its children notice through
 * the watchdog, scripts/stack/guard.ts), a crash that took the watchdog too (the next start finds the
 * leftovers by their pid files and stops them), and a port held by a stranger (named, not "in use").
 */
const base = Number(process.env.TEST_PORT_BASE ?? 15400) + 70;
const ports = launcherPorts(base);
const dataDir = `.data/launcher-crash-${base}`;
const spawned: number[] = [];

/** Every launcher a test starts, so a test that fails half-way leaves no stack running for the next. */
const launched: number[] = [];
const start = (...args: Parameters<typeof launch>) => {
  const l = launch(...args);
  launched.push(l.proc.pid!);
  return l;
};

afterAll(async () => {
  // A live launcher is SIGKILLed (its watchdog then stops its children); then whatever is left.
  for (const pid of alive(launched)) process.kill(pid, 'SIGKILL');
  await waitUntil(() => alive(launched).length === 0, 15_000);
  for (const pid of alive(spawned)) process.kill(pid, 'SIGKILL'); // only if a test failed half-way
  rmSync(dataDir, { recursive: true, force: true });
});

describe('launcher crashes', () => {
  it('SIGKILL of the launcher: every child is gone within 15 s', async () => {
    const { proc, ready } = start(base, dataDir);
    await ready;
    const children = descendants(proc.pid!);
    spawned.push(...children.map((c) => c.pid));
    // The services start side by side, so their order among the children is not fixed.
    const commands = children.map((c) => c.cmd).join('\n');
    expect(commands).toMatch(/temporal server start-dev/);
    expect(commands).toMatch(/postgres/);

    proc.kill('SIGKILL');
    const started = Date.now();
    const gone = await waitUntil(() => alive(children.map((c) => c.pid)).length === 0, 15_000);
    const left = children.filter((c) => alive([c.pid]).length);
    expect(left, `still running ${Date.now() - started} ms after SIGKILL`).toEqual([]);
    expect(gone).toBe(true);
    expect(await openPorts(base)).toEqual([]);
  }, 240_000);

  it('a start over the leftovers of a run killed with its watchdog stops them, says so, and comes up', async () => {
    const first = start(base, dataDir);
    await first.ready;
    const children = descendants(first.proc.pid!);
    spawned.push(...children.map((c) => c.pid));
    const watchdog = children.find((c) => c.cmd.includes('watchdog.sh'));
    expect(watchdog).toBeDefined();
    process.kill(watchdog!.pid, 'SIGKILL');
    first.proc.kill('SIGKILL');
    await exited(first.proc);
    const temporal = children.find((c) => c.cmd.includes('temporal server start-dev'))!;
    expect(alive([temporal.pid])).toEqual([temporal.pid]); // the leftover is real

    const second = start(base, dataDir);
    const line = await second.ready;
    expect(line).toMatch(/^ready in/);
    // A leftover whose output pipe went with the launcher may have died of it (SIGPIPE) before the
    // second start looked; PostgreSQL logs to its own files and is always still there.
    if (second.output().includes(`pid ${temporal.pid}`))
      expect(second.output()).toMatch(
        new RegExp(`stopping temporal \\(pid ${temporal.pid}\\), left running by an earlier run`),
      );
    expect(second.output()).toMatch(/stopping PostgreSQL \(pid \d+\), left running by an earlier run/);
    expect(alive(children.filter((c) => !c.cmd.includes('watchdog')).map((c) => c.pid))).toEqual([]);

    const now = descendants(second.proc.pid!).map((c) => c.pid);
    spawned.push(...now);
    second.proc.kill('SIGINT');
    expect(await exited(second.proc)).toBe(0);
    expect(await waitUntil(() => alive(now).length === 0, 5000)).toBe(true);
    expect(await openPorts(base)).toEqual([]);
  }, 300_000);

  it('a port held by a process that is not ours: the launcher names it and the setting, and leaves nothing behind', async () => {
    const stranger: Server = createServer();
    await new Promise<void>((r) => stranger.listen(ports.temporal, '127.0.0.1', r));
    try {
      const { proc, output } = start(base, dataDir);
      const children: number[] = [];
      const poll = setInterval(() => children.push(...descendants(proc.pid!).map((c) => c.pid)), 100);
      const code = await exited(proc);
      clearInterval(poll);
      spawned.push(...children);
      expect(code).not.toBe(0);
      expect(output()).toContain(`port ${ports.temporal} for Temporal is held by pid ${process.pid}`);
      expect(output()).toContain('TEMPORAL_PORT');
      expect(await waitUntil(() => alive(children).length === 0, 15_000)).toBe(true);
    } finally {
      stranger.close();
    }
    expect(await openPorts(base)).toEqual([]);
  }, 240_000);
});
