import type { paths } from './schema.js';

/** Names for the generated answer shapes the SDK's helpers and the CLI pass around. */
type Json<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer T } } };
}
  ? T
  : never;

export type ArtifactOut = Json<'/v0/artifacts/{art_id}', 'get'>;
export type ArtifactPage = Json<'/v0/artifacts', 'get'>;
export type VersionPage = Json<'/v0/artifacts/{art_id}/versions', 'get'>;
export type EventPage = Json<'/v0/events', 'get'>;
/** An event; `seq` arrives with the change feed (issue 28) and is absent on older servers. */
export type EventOut = EventPage['items'][number] & { seq?: number };
export type DeleteOut = Json<'/v0/artifacts/{art_id}', 'delete'>;
export type SearchPage = Json<'/v0/search', 'get'>;
export type FindPage = Json<'/v0/find', 'get'>;
export type DriveOverview = Json<'/v0/drives/me', 'get'>;
export type ShareMinted = Json<'/v0/shares', 'post', 201>;
export type Registration = Json<'/agent/identity', 'post', 201>;
export type ClaimStart = Json<'/agent/identity/claim', 'post'>;
export type UploadBeginOut = Json<'/v0/uploads', 'post'>;
export type RunPage = Json<'/v0/runs', 'get'>;
export type RevertOut = Json<'/v0/runs/{run_id}/revert', 'post'>;
export type RewindOut = Json<'/v0/drives/me/rewind', 'post'>;
export type SnapshotOut = Json<'/v0/snapshots', 'post', 201>;
export type EditOut = Json<'/v0/artifacts/{art_id}/edit', 'post'>;
export type TextLines = Json<'/v0/artifacts/{art_id}/text', 'get'>;
