import type { AppContext } from '../platform/context.js';
import { closeUploadSession } from '../uploads/upload-sessions.js';

export interface UploadActivities {
  closeUploadSession(s: {
    uploadId: string;
    driveId: string;
    expire: boolean;
  }): Promise<{ state: string; expiredNow: boolean }>;
}

/** Activities of the large-upload session workflow (src/workflows/upload-session.ts). */
export function createUploadActivities(ctx: AppContext): UploadActivities {
  return {
    closeUploadSession: (s) => closeUploadSession(ctx, s),
  };
}
