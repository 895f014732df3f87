import type { AppContext } from '../platform/context.js';

/**
 * Where each watched drive's feed stands (`drives.event_seq`, the newest committed seq), for the
 * streams of this process. One query per tick for every drive that has a waiting stream, whatever
 * the number of streams, and no tick at all while nobody waits: streams stay independent of which
 * process committed the write (docs/decisions/feed.md, Stream).
 */
interface Waiter {
  after: number;
  wake: (head: number) => void;
}

export class DriveHeads {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;

  constructor(
    private readonly app: AppContext,
    private readonly pollMs: number,
  ) {}

  /** Resolves with the drive's head once it is beyond `after` (at once if it is already), or with `after` on abort. */
  async beyond(driveId: string, after: number, signal: AbortSignal): Promise<number> {
    const head = (await this.read([driveId])).get(driveId) ?? 0;
    if (head > after || signal.aborted) return Math.max(head, after);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        after,
        wake: (h) => {
          this.remove(driveId, waiter);
          signal.removeEventListener('abort', onAbort);
          resolve(h);
        },
      };
      const onAbort = () => waiter.wake(after);
      signal.addEventListener('abort', onAbort);
      const set = this.waiters.get(driveId) ?? new Set();
      set.add(waiter);
      this.waiters.set(driveId, set);
      this.timer ??= setInterval(() => void this.tick(), this.pollMs).unref();
    });
  }

  private remove(driveId: string, waiter: Waiter) {
    const set = this.waiters.get(driveId);
    set?.delete(waiter);
    if (set && !set.size) this.waiters.delete(driveId);
    if (!this.waiters.size && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private async tick() {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const heads = await this.read([...this.waiters.keys()]);
      for (const [driveId, head] of heads)
        for (const w of [...(this.waiters.get(driveId) ?? [])]) if (head > w.after) w.wake(head);
    } catch (err) {
      this.app.logger.warn({ err }, 'feed: reading drive heads failed; retried next tick');
    } finally {
      this.ticking = false;
    }
  }

  private async read(driveIds: string[]): Promise<Map<string, number>> {
    if (!driveIds.length) return new Map();
    const { rows } = await this.app.pool.query<{ id: string; event_seq: string }>(
      'select id, event_seq from drives where id = any($1::text[])',
      [driveIds],
    );
    return new Map(rows.map((r) => [r.id, Number(r.event_seq)]));
  }
}

const perProcess = new WeakMap<AppContext, DriveHeads>();

/** The process's one DriveHeads (per AppContext, so test processes with several apps keep them apart). */
export function driveHeads(app: AppContext): DriveHeads {
  let heads = perProcess.get(app);
  if (!heads) perProcess.set(app, (heads = new DriveHeads(app, app.config.feed.pollMs)));
  return heads;
}
