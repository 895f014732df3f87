import type { RequestContext } from '../platform/request-context.js';
import {
  artifactNotFound,
  getLiveArtifact,
  getLiveArtifactByPath,
  type ArtifactRow,
} from '../records/artifact-records.js';
import { checkLabels, checkMetadata, checkNotWiki, checkPath, preconditionFailed } from './artifact-rules.js';
import { EventAction } from './events.js';
import { writeTransaction } from './write-transaction.js';
import { one } from '../db/sql.js';

/**
 * Labels and metadata edited in place (the MCP `set_metadata` tool): no new version, because the
 * bytes did not change; `updated_at` moves and `artifact.metadata_updated` is recorded. A field
 * left undefined keeps its value; a given one replaces it (`[]`/`{}` clear). If-Match applies.
 */
export async function setArtifactMetadata(
  rc: RequestContext,
  input: { artId?: string; path?: string; labels?: string[]; metadata?: Record<string, unknown>; ifMatch?: number },
): Promise<ArtifactRow> {
  const labels = input.labels !== undefined ? checkLabels(input.labels) : undefined;
  const metadata = input.metadata !== undefined ? checkMetadata(input.metadata) : undefined;
  if (input.path !== undefined) checkPath(input.path);
  return writeTransaction(rc.app, async (w) => {
    const current = input.artId
      ? await getLiveArtifact(w.tx, rc.driveId, input.artId, true)
      : await getLiveArtifactByPath(w.tx, rc.driveId, input.path!, true);
    if (!current) throw artifactNotFound();
    checkNotWiki(current.path);
    if (input.ifMatch !== undefined && input.ifMatch !== current.version_number)
      throw preconditionFailed(current.version_number);
    if (labels === undefined && metadata === undefined) return current;
    const row = (await one<ArtifactRow>(
      w.tx,
      `update artifacts set labels = case when ? then array[?]::text[] else labels end, metadata = coalesce(?::jsonb, metadata),
         updated_at = clock_timestamp() where id = ? returning *`,
      [labels !== undefined, labels ?? [], metadata ? JSON.stringify(metadata) : null, current.id],
    ))!;
    await w.event({
      driveId: rc.driveId,
      artId: row.id,
      action: EventAction.artifactMetadataUpdated,
      actor: rc.actor,
      metadata: { path: row.path, version_number: row.version_number, labels: row.labels, metadata: row.metadata },
    });
    return row;
  });
}
