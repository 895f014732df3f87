import { ApplicationFailure, Context } from '@temporalio/activity';
import type { AppContext } from '../platform/context.js';
import { drainOutbox, ShardBusyError, type DrainStats, type OwnDrainer } from '../outbox/drain.js';
import type { OutboxHandler } from '../outbox/outbox.js';
import { HEARTBEAT_EVERY_MS } from './heartbeat.js';
import type { DrainInput } from '../temporal/outbox-messages.js';

export interface OutboxActivities {
  /** Drains one shard of one topic for a while (src/outbox/drain.ts); heartbeats its counts. */
  drainOutbox(input: DrainInput): Promise<DrainStats>;
}

/** The drain activity over the handlers this worker has (search, compile, webhooks always; wiki when configured). */
export function createOutboxActivities(ctx: AppContext, handlers: (OutboxHandler | OwnDrainer)[]): OutboxActivities {
  return {
    async drainOutbox(input) {
      const handler = handlers.find((h) => h.topic === input.topic);
      if (!handler)
        throw ApplicationFailure.retryable(
          `this worker has no handler for outbox topic ${input.topic}`,
          'NoOutboxHandler',
        );
      const context = Context.current();
      // Heartbeats every HEARTBEAT_EVERY_MS with the latest progress, also while one large artifact
      // splits for minutes (the splitter yields to the event loop), so only a dead worker misses them.
      let latest: unknown;
      const beat = (details?: unknown) => {
        if (details !== undefined) latest = details;
        context.heartbeat(latest);
      };
      const timer = setInterval(beat, HEARTBEAT_EVERY_MS);
      try {
        const opts = {
          ...input,
          signal: context.cancellationSignal,
          progress: { heartbeat: beat },
          logger: ctx.logger,
        };
        return await ('drain' in handler ? handler.drain(opts) : drainOutbox(ctx.pool, handler, opts));
      } catch (err) {
        if (err instanceof ShardBusyError) throw ApplicationFailure.retryable(err.message, 'ShardBusy');
        throw err;
      } finally {
        clearInterval(timer);
      }
    },
  };
}
