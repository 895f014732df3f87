import { watch as watchFs } from 'node:fs';
import type { DriveClient } from '../../client.js';
import { followEvents } from '../../events.js';
import { STATE_DIR } from './local-scan.js';
import { syncPass, type PassReport } from './reconcile.js';
import { loadState, saveState } from './state.js';

/**
 * `sync --once` (one two-way pass) and `sync --watch` (passes whenever the folder or the drive changes). Each pass is
 * one run (a new client, so a new X-Drive-Run-Id). The watcher wakes on the folder (fs.watch, recursive, debounced)
 * and on the drive's change feed (the SSE stream, resumed after the saved seq), and polls every few seconds besides,
 * so a missed notification only delays a change.
 */
export interface TwoWayOptions {
  dir: string;
  prefix: string;
  all: boolean;
  /** A client for one pass (its own run). */
  clientForPass: () => DriveClient;
  log: (report: PassReport, at: number) => void;
}

const LOCAL_DEBOUNCE_MS = 150;
const SAFETY_POLL_MS = 5000;

export async function syncOnce(o: TwoWayOptions): Promise<PassReport> {
  const state = await loadState(o.dir, o.prefix);
  const report = await syncPass(o.clientForPass(), o.dir, state, o.all);
  await saveState(o.dir, state);
  o.log(report, Date.now());
  return report;
}

export async function syncWatch(o: TwoWayOptions, signal: AbortSignal): Promise<void> {
  let state = await loadState(o.dir, o.prefix);
  let wanted = true;
  let wake: () => void = () => {};
  const poke = () => ((wanted = true), wake());
  let debounce: NodeJS.Timeout | undefined;
  const watcher = watchFs(o.dir, { recursive: true }, (_event, name) => {
    if (name && String(name).split(/[\\/]/)[0] === STATE_DIR) return;
    clearTimeout(debounce);
    debounce = setTimeout(poke, LOCAL_DEBOUNCE_MS);
  });
  const poll = setInterval(poke, SAFETY_POLL_MS);
  const feedClient = o.clientForPass();
  const feed = (async () => {
    for (;;) {
      try {
        const after = state.seq === null ? undefined : String(state.seq);
        for await (const _event of followEvents(feedClient, { after, signal })) poke();
        return;
      } catch (err) {
        if (signal.aborted) return;
        process.stderr.write(`sync: change feed: ${(err as Error).message}; reconnecting\n`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  })();
  signal.addEventListener('abort', () => wake(), { once: true });
  try {
    while (!signal.aborted) {
      if (!wanted) await new Promise<void>((r) => (wake = r));
      if (signal.aborted) break;
      wanted = false;
      try {
        state = await loadState(o.dir, o.prefix);
        const report = await syncPass(o.clientForPass(), o.dir, state, o.all);
        await saveState(o.dir, state);
        o.log(report, Date.now());
        if (report.stale) wanted = true;
      } catch (err) {
        process.stderr.write(`sync: pass failed: ${(err as Error).message}; retrying\n`);
        await new Promise((r) => setTimeout(r, 1000));
        wanted = true;
      }
    }
  } finally {
    watcher.close();
    clearInterval(poll);
    clearTimeout(debounce);
    void feed.catch(() => undefined); // aborted with the signal; not awaited, a hanging read must not block the exit
  }
}
