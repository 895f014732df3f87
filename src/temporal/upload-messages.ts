import { defineSignal } from '@temporalio/workflow';

/** Id, input and messages of the large-upload session workflow (src/workflows/upload-session.ts). */
export interface UploadSessionInput {
  uploadId: string;
  driveId: string;
  /** Epoch milliseconds; the API computes it from UPLOAD_SESSION_TTL_S at begin. */
  expiresAtMs: number;
}

export interface UploadSessionResult {
  state: string;
  expiredNow: boolean;
}

/** Sent by a commit once it is durable, so the session closes before its timer. */
export const uploadCommittedSignal = defineSignal('uploadCommitted');

export const uploadWorkflowId = (uploadId: string) => `upload-${uploadId}`;
