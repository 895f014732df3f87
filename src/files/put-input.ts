import type { Source, Visibility } from './artifact-rules.js';

/** What a PUT writes: the path, the upload's fields, who writes and the preconditions it names. */
export interface PutInput {
  driveId: string;
  path: string;
  /** Each optional field: undefined = header omitted (keep on overwrite, default on create). */
  contentType?: string;
  labels?: string[];
  metadata?: Record<string, unknown>;
  source?: Source;
  visibility?: Visibility;
  actor: string | null;
  changeSummary: string | null;
  ifMatch?: number;
  /** X-Drive-Merge: three-way: an older If-Match merges (src/files/merge-write.ts) instead of failing. */
  merge?: boolean;
  /** The original file name (X-Drive-Filename); omitted keeps it on overwrite. */
  filename?: string;
  /** Write only over this artifact (upload by id): 404 when the path no longer holds it. */
  artId?: string;
  /** Set when a grantee (not the drive's own credential) writes: recorded in the event. */
  grantee?: { drive_id: string; identity_id: string | null; role: string };
  /**
   * The service's own write under `_wiki/` (src/files/system-writes.ts): counted in storage, never refused by the
   * quota.
   */
  system?: true;
}

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
