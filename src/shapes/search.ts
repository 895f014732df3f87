import { z } from 'zod';
import type { Config } from '../lib/config.js';
import { MODALITIES, type PassageHit, type SearchHit } from '../search/engine.js';
import type { SemanticReport } from '../search/semantic-report.js';
import type { FusedPassageHit } from '../search/service.js';
import { artifactPermalink, artifactUrl } from './artifacts.js';

/**
 * Public shapes of search and find hits (REST /v0/search, /v0/find and the MCP tools); url and permalink as
 * ArtifactOut's.
 */
export function searchHitOut(config: Config, h: SearchHit) {
  return {
    art_id: h.artId,
    drive_id: h.driveId,
    path: h.path,
    url: artifactUrl(config, h.driveId, h.path),
    permalink: artifactPermalink(config, h.artId),
    content_type: h.contentType,
    file_type: h.fileType,
    labels: h.labels,
    updated_at: h.updatedAt.toISOString(),
    version_number: h.versionNumber,
    snippet: h.snippet,
    score: h.score,
  };
}

const spans = (h: PassageHit) => ({
  char_start: h.charStart,
  char_end: h.charEnd,
  page_start: h.pageStart,
  page_end: h.pageEnd,
  time_start_ms: h.timeStartMs,
  time_end_ms: h.timeEndMs,
  // PDF pages have their own columns; documents store their unit.
  anchor: h.anchor ?? (h.pageStart !== undefined ? { page: h.pageStart } : undefined),
});

export function findHitOut(config: Config, h: FusedPassageHit) {
  return {
    ...searchHitOut(config, h),
    modality: h.modality,
    ord: h.ord,
    text: h.text,
    rank_lexical: h.rankLexical,
    rank_semantic: h.rankSemantic,
    ...spans(h),
  };
}

/** The hits' response schemas (REST OpenAPI and MCP output schemas). */
const hitBase = {
  art_id: z.string(),
  drive_id: z.string(),
  path: z.string(),
  url: z.string().describe('{web_url}/{drive_id}/{path}, as ArtifactOut.url'),
  permalink: z.string().describe('{web_url}/a/{art_id}, as ArtifactOut.permalink'),
  content_type: z.string(),
  file_type: z.string(),
  labels: z.array(z.string()),
  updated_at: z.string(),
  version_number: z.number().int(),
  snippet: z.string().describe('matches wrapped in <mark>…</mark>'),
  score: z.number(),
};
export const searchHitSchema = z.object(hitBase);
/** Where a find hit lies: a PDF page, a slide, a sheet and cell range, an EPUB chapter, a heading path. */
export const anchorSchema = z
  .union([
    z.object({ page: z.number().int() }),
    z.object({ slide: z.number().int() }),
    z.object({ sheet: z.string(), range: z.string() }),
    z.object({ chapter: z.number().int(), title: z.string().optional() }),
    z.object({ heading: z.string() }),
  ])
  .describe('the unit the passage lies in; char_start/char_end are offsets in that unit for documents');
const span = z.number().int().optional();
export const findHitSchema = z.object({
  ...hitBase,
  modality: z.enum(MODALITIES),
  ord: z.number().int(),
  text: z.string(),
  rank_lexical: z.number().int().nullable(),
  rank_semantic: z.number().int().nullable(),
  char_start: span,
  char_end: span,
  page_start: span,
  page_end: span,
  time_start_ms: span,
  time_end_ms: span,
  anchor: anchorSchema.optional(),
});

/** What find's semantic leg did for this answer (src/search/semantic-report.ts). */
export function semanticOut(r: SemanticReport) {
  return {
    status: r.status,
    ...(r.pendingPassages !== undefined ? { pending_passages: r.pendingPassages } : {}),
    note: r.note,
  };
}

export const semanticSchema = z
  .object({
    status: z
      .enum(['ok', 'catching_up', 'off', 'unavailable', 'not_used'])
      .describe(
        'ok: both legs ran over every passage in scope; catching_up: some passages in scope have no vector yet ' +
          '(found by words only, or by semantic not at all); off: no embeddings provider, the answer is lexical only; ' +
          'unavailable: the provider failed to embed the query, the answer is lexical only; not_used: mode=lexical',
      ),
    pending_passages: z
      .number()
      .int()
      .optional()
      .describe('with catching_up: passages in scope not embedded yet (counted up to 10000)'),
    note: z.string().describe('the same in one sentence, for a person or an agent'),
  })
  .describe('what the semantic leg did for this answer: never a silent lexical-only answer');
