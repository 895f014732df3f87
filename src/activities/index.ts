import type { AppContext } from '../context.js';
import { createCleanupActivities } from './cleanup.js';
import { createIdentityActivities } from './identity.js';
import { createUploadActivities } from './uploads.js';

/** All activities, bound to the process's shared context (ORM, S3, clients). */
export function createActivities(ctx: AppContext) {
  return {
    ...createCleanupActivities(ctx),
    ...createIdentityActivities(ctx),
    ...createUploadActivities(ctx),
  };
}
