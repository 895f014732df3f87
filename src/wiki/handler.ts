import type { AppContext } from '../platform/context.js';
import { forEachLimited, type BatchProgress, type OutboxHandler, type OutboxRequest } from '../outbox/outbox.js';
import { wikiPass, type PassOutcome } from './pass.js';
import { createWikiModel, type WikiModel } from './provider.js';

/**
 * The wiki's outbox handler (topic `wiki`): one pass per artifact of the batch (src/wiki/pass.ts),
 * at most `concurrency` at once (model calls are slow; each pass also holds up to two pooled
 * connections while it writes a page). A pass that throws (provider down, database error) is
 * reported as failed, so the drainer retries that artifact after a backoff; every other request is
 * done, including passes that recorded an invalid reply (docs/decisions.md, Wiki → Retries).
 */
export interface WikiHandlerOptions {
  /** The language model; default: the configured provider (config.llm). */
  model?: WikiModel;
  concurrency?: number;
  /** Called after each pass (tests, logs). */
  onPass?: (req: OutboxRequest, outcome: PassOutcome | Error) => void;
}

export function createWikiHandler(ctx: AppContext, opts: WikiHandlerOptions = {}): OutboxHandler {
  const model = opts.model ?? (ctx.config.llm ? createWikiModel(ctx.config.llm) : undefined);
  if (!model) throw new Error('the wiki needs a language model (LLM_URL)');
  const concurrency = Math.max(1, opts.concurrency ?? 2);
  return {
    topic: 'wiki',
    async handle(batch: OutboxRequest[], progress: BatchProgress) {
      const failures = new Map<string, Error>();
      let done = 0;
      await forEachLimited(batch, concurrency, async (req) => {
        try {
          const outcome = await wikiPass({ ctx, model }, req);
          opts.onPass?.(req, outcome);
        } catch (err) {
          const error = err instanceof Error ? err : new Error(String(err));
          failures.set(req.artId, error);
          opts.onPass?.(req, error);
        }
        progress.heartbeat({ topic: 'wiki', done: ++done, of: batch.length });
      });
      return failures;
    },
  };
}
