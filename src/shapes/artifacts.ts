import { retentionDays, type Config } from '../lib/config.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import type { DownloadUrl } from '../files/content.js';
import { iso } from '../lib/time.js';

/**
 * The public shapes of artifacts (spec 2.2), shared by every adapter (REST, MCP, web): the domain
 * returns rows, and only this module knows field names and URLs. Field names per SPEC over REFERENCE.
 */
/** The public rendered URL, viewer scheme `{web_url}/{drive_id}/{path}`; permalink `{web_url}/a/{art_id}`. */
export function artifactUrl(config: Config, driveId: string, path: string): string {
  return `${config.http.webUrl}/${driveId}/${path}`;
}

export function artifactPermalink(config: Config, artId: string): string {
  return `${config.http.webUrl}/a/${artId}`;
}

/**
 * `merged`: set on the answer to a write that merged three-way (src/files/merge-write.ts); `extraction`: on a read of
 * one artifact as it is now (src/history/as-of.ts, artifactAt).
 */
export function artifactOut(
  config: Config,
  r: ArtifactRow & { merged?: { base: number; theirs: number }; extraction?: string | null },
) {
  return {
    art_id: r.id,
    drive_id: r.drive_id,
    path: r.path,
    filename: r.filename ?? null,
    url: artifactUrl(config, r.drive_id, r.path),
    permalink: artifactPermalink(config, r.id),
    content_type: r.content_type,
    file_type: r.file_type,
    size_bytes: Number(r.size_bytes),
    hash: r.hash,
    version_number: r.version_number,
    labels: r.labels,
    metadata: r.metadata,
    source: r.source ?? { refs: [] },
    visibility: r.visibility,
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
    deleted_at: iso(r.deleted_at),
    purge_at: iso(r.purge_at),
    indexed_at: iso(r.indexed_at),
    embedded_at: iso(r.embedded_at),
    llm_index: r.llm_index ?? null,
    ...(r.merged ? { merged: r.merged } : {}),
    ...(r.extraction !== undefined ? { extraction: r.extraction } : {}),
  };
}
export type ArtifactOut = ReturnType<typeof artifactOut>;

/** The artifact delete result (path and id forms): the trashed row, its retention and where to restore it. */
export function artifactDeleteOut(config: Config, r: ArtifactRow) {
  return {
    ok: true as const,
    art_id: r.id,
    path: r.path,
    deleted_at: iso(r.deleted_at)!,
    purge_at: iso(r.purge_at)!,
    retention_days: retentionDays(config),
    restore_url: `${config.http.baseUrl}/v0/artifacts/${r.id}/restore`,
  };
}

/** DownloadUrlOut (spec 2.5, plus REFERENCE's size_bytes, content_type, filename). */
export function downloadUrlOut(d: DownloadUrl) {
  return {
    url: d.url,
    direct: d.direct,
    expires_at: d.expiresAt ? d.expiresAt.toISOString() : null,
    size_bytes: d.blob.size,
    content_type: d.blob.contentType,
    filename: d.filename,
  };
}
