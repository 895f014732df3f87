import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import { getLiveArtifactByPath, type ArtifactRow } from '../records/artifact-records.js';
import { checkPath, isWikiPath } from './artifact-rules.js';
import { putStoredArtifact } from './artifacts.js';
import { prepareText, type PreparedText } from './blobs.js';
import type { WriteTx } from './write-transaction.js';
import { trashRow } from './trash.js';

/**
 * The service's own writes under `_wiki/` (the wiki's pages, src/wiki). Every caller-facing write
 * refuses `_wiki/` with WIKI_RESERVED (checkNotWiki); these operations are the one way in, and only
 * for a system principal (systemRequestContext). They go through the same version, blob, quota and
 * event steps as any upload, inside the caller's write transaction (which holds the page's lock).
 */
function checkSystemWiki(rc: RequestContext, path: string): void {
  if (rc.principal.kind !== 'system')
    throw new AppError('WIKI_RESERVED', '_wiki/ is reserved for system-generated wiki pages');
  checkPath(path);
  if (!isWikiPath(path)) throw new AppError('INVALID_PATH', `system writes are limited to _wiki/, not ${path}`);
}

export type StoredText = PreparedText;

/**
 * Readies the bytes of a page under their hash before the transaction that references them: inline when small (the
 * transaction keeps them), else put in object storage now.
 */
export const storeSystemText = (rc: RequestContext, text: string): Promise<StoredText> =>
  prepareText(rc.app, text, { driveId: rc.driveId });

/** The live artifact at a `_wiki/` path, locked for the rest of the transaction, or undefined. */
export async function lockSystemArtifact(
  rc: RequestContext,
  w: WriteTx,
  path: string,
): Promise<ArtifactRow | undefined> {
  checkSystemWiki(rc, path);
  return getLiveArtifactByPath(w.tx, rc.driveId, path, true);
}

/** Creates the page or appends a version (artifact.created / artifact.updated, attributed to rc.actor). */
export async function putSystemArtifact(
  rc: RequestContext,
  w: WriteTx,
  input: { path: string; contentType: string; body: StoredText; changeSummary: string | null },
): Promise<ArtifactRow> {
  checkSystemWiki(rc, input.path);
  return putStoredArtifact(
    rc.app,
    w,
    {
      driveId: rc.driveId,
      path: input.path,
      contentType: input.contentType,
      actor: rc.actor,
      changeSummary: input.changeSummary,
      system: true,
    },
    input.body,
    input.body.arrival,
  );
}

/** Moves a system artifact to the trash (artifact.deleted with `cause`), like any delete. */
export async function trashSystemArtifact(
  rc: RequestContext,
  w: WriteTx,
  row: ArtifactRow,
  cause: string,
): Promise<ArtifactRow> {
  checkSystemWiki(rc, row.path);
  return trashRow(rc.app, w, row, rc.actor, cause);
}
