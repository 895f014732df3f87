import type { Config } from '../lib/config.js';
import type { PassageHit, SearchHit } from '../search/engine.js';
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
