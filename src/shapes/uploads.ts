import type { OpenedUpload } from '../uploads/uploads.js';

/** UploadBeginOut (POST /v0/uploads): where to PUT the bytes, until when, and how many. */
export const uploadBeginOut = (u: OpenedUpload) => ({
  upload_id: u.uploadId,
  method: 'PUT' as const,
  expires_at: u.expiresAt.toISOString(),
  max_bytes: u.maxBytes,
  upload_url: u.url,
  headers: u.headers,
  ...(u.parts ? { parts: u.parts } : {}),
});
