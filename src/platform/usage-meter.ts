import type { Orm } from '../db/orm.js';
import type { Logger } from '../lib/logger.js';
import { pgCode } from '../db/sql.js';
import { incrementUsage, type UsageKind } from './usage-counters.js';

/**
 * Counts usage (reads, retrieval queries, indexing passes) for the monthly report in memory and
 * adds it to `usage_counters` with one upsert per drive and kind each interval. An upsert per
 * request would serialise every request of a drive on one row lock and one durable commit, and
 * put a write on the path of every read. If the process dies, at most one interval of counts is lost.
 */
export class UsageMeter {
  /** Keyed `<drive_id> <kind>`. */
  private pending = new Map<string, number>();
  /** Flushes still writing (the interval's, or a caller's). */
  private readonly writing = new Set<Promise<void>>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly orm: Orm,
    private readonly logger: Logger,
    intervalMs = 1000,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  count(driveId: string, kind: UsageKind = 'reads'): void {
    const key = `${driveId} ${kind}`;
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
  }

  /** Counts not yet written. */
  get pendingCount(): number {
    let n = 0;
    for (const v of this.pending.values()) n += v;
    return n;
  }

  /**
   * Writes the pending counts (of one drive, or all); counts that fail to write are kept for the next flush. Resolves
   * once every count made before the call is written, also those an earlier flush took and is still writing (the
   * usage report flushes its drive, then reads the table).
   */
  flush(driveId?: string): Promise<void> {
    const earlier = [...this.writing];
    const write = Promise.all([this.write(driveId), Promise.allSettled(earlier)]).then(() => undefined);
    this.writing.add(write);
    const done = () => void this.writing.delete(write);
    write.then(done, done);
    return write;
  }

  private async write(driveId?: string): Promise<void> {
    const keys = [...this.pending.keys()].filter((k) => !driveId || k.startsWith(`${driveId} `));
    await Promise.all(
      keys.map(async (key) => {
        const n = this.pending.get(key);
        if (!n) return;
        this.pending.delete(key);
        const [drive, kind] = key.split(' ') as [string, UsageKind];
        try {
          await incrementUsage(this.orm.em.fork(), drive, kind, n);
        } catch (err) {
          // A drive purged meanwhile has nothing left to count.
          if (pgCode(err) === '23503') return;
          this.pending.set(key, (this.pending.get(key) ?? 0) + n);
          this.logger.warn({ err, drive, kind }, 'usage counts not written; retrying at the next flush');
        }
      }),
    );
  }

  /**
   * Stops the interval and writes what is left, after any flush still writing: the pool closes next,
   * and a flush caught taking a connection while it closes would hold that connection forever.
   */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled([...this.writing]);
    await this.flush();
  }
}
