import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { UploadActivities } from '../activities/uploads.js';

/**
 * One large-upload session (workflow id `upload-<upload_id>`): it owns the expiry timer. It waits
 * until the session's expires_at or a commit's signal, whichever comes first, then closes the
 * session: on the timer it expires a still-begun session (a conditional update, so a commit
 * holding the row wins or loses cleanly) and deletes the uploaded object in both cases.
 */
export interface UploadSessionInput {
  uploadId: string;
  driveId: string;
  /** Epoch milliseconds; the API computes it from UPLOAD_SESSION_TTL_S at begin. */
  expiresAtMs: number;
}

export const uploadCommittedSignal = defineSignal('uploadCommitted');

const { closeUploadSession } = proxyActivities<UploadActivities>({
  startToCloseTimeout: '2 minutes',
  // Cleanup must happen eventually: retry for as long as the database or the store is down.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', backoffCoefficient: 2 },
});

export async function uploadSessionWorkflow(input: UploadSessionInput): Promise<{ state: string; expiredNow: boolean }> {
  let committed = false;
  setHandler(uploadCommittedSignal, () => {
    committed = true;
  });
  const remainingMs = Math.max(1, input.expiresAtMs - Date.now());
  const signalled = await condition(() => committed, remainingMs);
  return closeUploadSession({ uploadId: input.uploadId, driveId: input.driveId, expire: !signalled });
}
