import type { PutInput } from '../files/artifacts.js';
import type { Source } from '../files/artifact-rules.js';

/**
 * The artifact write a pending upload stands for, frozen when it was begun (upload_sessions) or minted
 * (upload_tokens): the same columns in both tables, null where the caller omitted the field.
 */
export interface PendingWriteColumns {
  drive_id: string;
  path: string;
  content_type: string | null;
  labels: string[] | null;
  metadata: Record<string, unknown> | null;
  source: Source | null;
  actor_name: string | null;
  change_summary: string | null;
  if_match: number | null;
  /** Upload sessions only (X-Drive-Filename on begin). */
  filename?: string | null;
}

/** The frozen fields as the write they stand for (an omitted field keeps the artifact's value, spec 4.1 rule 1). */
export function pendingWriteInput(row: PendingWriteColumns): PutInput {
  return {
    driveId: row.drive_id,
    path: row.path,
    contentType: row.content_type ?? undefined,
    labels: row.labels ?? undefined,
    metadata: row.metadata ?? undefined,
    source: row.source ?? undefined,
    actor: row.actor_name,
    changeSummary: row.change_summary,
    ifMatch: row.if_match ?? undefined,
    filename: row.filename ?? undefined,
  };
}
