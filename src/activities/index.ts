import type { AppContext } from '../platform/context.js';
import { createCleanupActivities, type CleanupSweep } from './cleanup.js';
import { createIdentityActivities } from './identity.js';
import { createUploadActivities } from './uploads.js';
import { heartbeating } from './heartbeat.js';
import { createOutboxActivities } from './outbox.js';
import type { OutboxHandler } from '../outbox/outbox.js';
import type { OwnDrainer } from '../outbox/drain.js';
import { createCompileActivities } from './compile.js';
import { createSemanticGraphActivities } from './semantic-graph.js';

export interface ActivityBindings {
  /** The outbox topics this worker drains (search, compile, webhooks; the wiki when configured). */
  outboxHandlers?: (OutboxHandler | OwnDrainer)[];
  /** Run by the cleanup activity after the purge (the search index consistency check). */
  sweep?: CleanupSweep;
}

/** All activities, bound to the process's shared context (ORM, S3, clients). */
export function createActivities(ctx: AppContext, bindings: ActivityBindings = {}) {
  return heartbeating(
    {
      ...createCleanupActivities(ctx, bindings.sweep),
      ...createIdentityActivities(ctx),
      ...createUploadActivities(ctx),
      ...createCompileActivities(ctx),
      ...createSemanticGraphActivities(ctx),
      ...createOutboxActivities(ctx, bindings.outboxHandlers ?? []),
    },
    ['drainOutbox'],
  );
}
