import type { AppContext } from '../context.js';
import { createCleanupActivities, type CleanupSweep } from './cleanup.js';
import { createIdentityActivities } from './identity.js';
import { createUploadActivities } from './uploads.js';
import { heartbeating } from './heartbeat.js';
import { createIndexingActivities, type IndexingDeps } from './indexing.js';
import { createCompileActivities } from './compile.js';

export interface ActivityBindings {
  /** Search indexing; registered when the process has an ArtifactSource binding (see docs/decisions.md, Search). */
  indexing?: IndexingDeps;
  /** Run by the cleanup activity after the purge (the search index sweeper). */
  sweep?: CleanupSweep;
}

/** All activities, bound to the process's shared context (ORM, S3, clients). */
export function createActivities(ctx: AppContext, bindings: ActivityBindings = {}) {
  return heartbeating({
    ...createCleanupActivities(ctx, bindings.sweep),
    ...createIdentityActivities(ctx),
    ...createUploadActivities(ctx),
    ...createCompileActivities(ctx),
    ...(bindings.indexing ? createIndexingActivities(bindings.indexing) : {}),
  }, ['indexEmbed']);
}
