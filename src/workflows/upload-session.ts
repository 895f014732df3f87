import { condition, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { UploadActivities } from '../activities/uploads.js';
import {
  uploadCommittedSignal,
  type UploadSessionInput,
  type UploadSessionResult,
} from '../temporal/upload-messages.js';

/**
 * One large-upload session (workflow id `upload-<upload_id>`): it owns the expiry timer. It waits
 * until the session's expires_at or a commit's signal, whichever comes first, then closes the
 * session: on the timer it expires a still-begun session (a conditional update, so a commit
 * holding the row wins or loses cleanly) and deletes the uploaded object in both cases.
 */
const { closeUploadSession } = proxyActivities<UploadActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  // Cleanup must happen eventually: retry for as long as the database or the store is down.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', backoffCoefficient: 2 },
});

export async function uploadSessionWorkflow(input: UploadSessionInput): Promise<UploadSessionResult> {
  let committed = false;
  setHandler(uploadCommittedSignal, () => {
    committed = true;
  });
  // Workflow time, from history: the run's start. A run that starts late (no worker) ends late,
  // which is harmless: the API itself treats a session past expires_at as expired.
  const remainingMs = Math.max(1, input.expiresAtMs - workflowInfo().runStartTime.getTime());
  const signalled = await condition(() => committed, remainingMs);
  return closeUploadSession({ uploadId: input.uploadId, driveId: input.driveId, expire: !signalled });
}
