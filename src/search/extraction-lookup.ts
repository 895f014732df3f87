import { lookupRef } from '../files/refs.js';
import type { RequestContext } from '../platform/request-context.js';

/**
 * MCP `lookup`: the record `ref` names and, for an artifact, its extraction state as the last indexing pass left it
 * (`done`, `partial: <why>`, `failed: <why>`; null when its content is not read, or not indexed yet, or the engine is
 * Typesense, which keeps no state).
 */
export async function lookupWithExtraction(rc: RequestContext, ref: string) {
  const found = await lookupRef(rc, ref);
  if (found.kind !== 'artifact') return { found, extraction: null };
  return { found, extraction: await extractionOf(rc, found.artifact) };
}

/** The extraction state of the artifact's current version (REST's GET by id and …/meta carry it too). */
export async function extractionOf(
  rc: RequestContext,
  artifact: { drive_id: string; id: string; version_number: number },
): Promise<string | null> {
  const { rows } = await rc.app.pool.query<{ extraction: string | null; version_number: number }>(
    'select extraction, version_number from search_documents where drive_id = $1 and art_id = $2',
    [artifact.drive_id, artifact.id],
  );
  // A state of an older version is not this version's.
  const row = rows[0]?.version_number === artifact.version_number ? rows[0] : undefined;
  return row?.extraction ?? null;
}
