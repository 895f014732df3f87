import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { incrementUsage } from './usage.js';

/**
 * Counts reads for the monthly usage report in memory and adds them to `usage_counters` with one
 * upsert per drive each interval. An upsert per read would serialise every read of a drive on one
 * row lock and one durable commit. If the process dies, at most one interval of counts is lost.
 */
export class ReadMeter {
  private pending = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly orm: Orm,
    private readonly logger: Logger,
    intervalMs = 1000,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  count(driveId: string): void {
    this.pending.set(driveId, (this.pending.get(driveId) ?? 0) + 1);
  }

  /** Writes the pending counts (of one drive, or all); counts that fail to write are kept for the next flush. */
  async flush(driveId?: string): Promise<void> {
    const ids = driveId ? [driveId] : [...this.pending.keys()];
    await Promise.all(
      ids.map(async (id) => {
        const n = this.pending.get(id);
        if (!n) return;
        this.pending.delete(id);
        try {
          await incrementUsage(this.orm.em.fork(), id, 'reads', n);
        } catch (err) {
          this.pending.set(id, (this.pending.get(id) ?? 0) + n);
          this.logger.warn({ err, drive: id }, 'read counts not written; retrying at the next flush');
        }
      }),
    );
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
