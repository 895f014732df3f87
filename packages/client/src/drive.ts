import { DriveClient, ok, type DriveClientOptions } from './client.js';
import { DriveError } from './errors.js';
import { followEvents, type FollowOptions } from './events.js';
import { uploadBytes, type UploadOptions } from './uploads.js';
import type {
  ArtifactOut,
  ArtifactPage,
  DeleteOut,
  EventOut,
  FindPage,
  SearchPage,
  ShareMinted,
  VersionPage,
} from './types.js';

const ART_ID = /^art_[A-Za-z0-9]+$/;
/** A file named by `art_…` id or by path. */
export type Ref = string;

/**
 * The high-level SDK: one method per thing a program does with a drive, on top of the typed low-level client
 * (`drive.client.api` for everything else). Errors are `DriveError`s carrying the service's code.
 *
 * ```js
 * const drive = new Drive({ baseUrl: 'http://localhost:8080', credential: { apiKey: process.env.AGENT_DRIVE_API_KEY } });
 * await drive.put('notes/hello.md', '# hello', { contentType: 'text/markdown' });
 * console.log(await drive.text('notes/hello.md'));
 * ```
 */
export class Drive {
  readonly client: DriveClient;

  constructor(options: DriveClientOptions | DriveClient) {
    this.client = options instanceof DriveClient ? options : new DriveClient(options);
  }

  /** Writes `content` at `path` (a new version when the path holds a file). */
  put(path: string, content: string | Uint8Array, options: UploadOptions = {}): Promise<ArtifactOut> {
    const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    const contentType = options.contentType ?? (typeof content === 'string' ? 'text/plain; charset=utf-8' : undefined);
    return uploadBytes(this.client, path, bytes, { ...options, contentType });
  }

  /** The record of a file (by id or path). */
  async stat(ref: Ref): Promise<ArtifactOut> {
    if (ART_ID.test(ref))
      return ok(this.client.api.GET('/v0/artifacts/{art_id}', { params: { path: { art_id: ref } } }));
    return ok(this.client.api.GET('/v0/artifacts/{path}/meta', { params: { path: { path: ref } } }));
  }

  /** A file's bytes (its current version, or `version`). */
  async get(ref: Ref, options: { version?: number } = {}): Promise<Uint8Array> {
    const { art_id } = await this.stat(ref);
    const res = await this.client.fetch(
      options.version === undefined
        ? `/v0/artifacts/${art_id}/download`
        : `/v0/artifacts/${art_id}/versions/${options.version}/download`,
    );
    if (!res.ok) throw await DriveError.fromResponse(res);
    return new Uint8Array(await res.arrayBuffer());
  }

  /** A file's text (UTF-8). */
  async text(ref: Ref, options: { version?: number } = {}): Promise<string> {
    return new TextDecoder().decode(await this.get(ref, options));
  }

  /** One page of live files under `prefix`, sorted by path; pass `next_cursor` back for the next. */
  list(options: { prefix?: string; label?: string[]; cursor?: string; limit?: number } = {}): Promise<ArtifactPage> {
    return ok(this.client.api.GET('/v0/artifacts', { params: { query: options } }));
  }

  /** Renames or moves a file; its id, versions and labels stay. */
  async move(ref: Ref, to: string): Promise<ArtifactOut> {
    const { art_id } = await this.stat(ref);
    return ok(this.client.api.PATCH('/v0/artifacts/{art_id}', { params: { path: { art_id } }, body: { path: to } }));
  }

  /** Copies a file to `to` (a new id, version 1, the bytes shared). */
  async copy(ref: Ref, to: string): Promise<ArtifactOut> {
    const { art_id } = await this.stat(ref);
    return ok(
      this.client.api.POST('/v0/artifacts/{art_id}/copy', { params: { path: { art_id } }, body: { path: to } }),
    );
  }

  /** Moves a file to the trash (restore brings it back until its purge_at). */
  async delete(ref: Ref): Promise<DeleteOut> {
    const { art_id } = await this.stat(ref);
    return ok(this.client.api.DELETE('/v0/artifacts/{art_id}', { params: { path: { art_id } } }));
  }

  /** Brings a trashed file back by id; with `version`, makes that version of a live file current again. */
  async restore(artId: string, options: { version?: number } = {}): Promise<ArtifactOut> {
    if (options.version !== undefined)
      return ok(
        this.client.api.POST('/v0/artifacts/{art_id}/versions/{version_number}/restore', {
          params: { path: { art_id: artId, version_number: options.version } },
        }),
      );
    return ok(this.client.api.POST('/v0/artifacts/{art_id}/restore', { params: { path: { art_id: artId } } }));
  }

  /** A file's versions, newest first (one page). */
  async versions(ref: Ref, options: { cursor?: string; limit?: number } = {}): Promise<VersionPage> {
    const { art_id } = await this.stat(ref);
    return ok(this.client.api.GET('/v0/artifacts/{art_id}/versions', { params: { path: { art_id }, query: options } }));
  }

  /** Lexical search (words, "phrases", -not, OR). */
  search(q: string, options: { prefix?: string; limit?: number; cursor?: string } = {}): Promise<SearchPage> {
    return ok(this.client.api.GET('/v0/search', { params: { query: { q, ...options } } }));
  }

  /** Passage retrieval (hybrid, lexical or semantic). */
  find(
    q: string,
    options: { mode?: 'hybrid' | 'lexical' | 'semantic'; prefix?: string; limit?: number } = {},
  ): Promise<FindPage> {
    return ok(this.client.api.GET('/v0/find', { params: { query: { q, ...options } } }));
  }

  /** A share link for a file or folder (its key is in the answer, once). */
  share(resource: Ref, options: { role?: 'viewer' | 'commenter' | 'editor'; expiresIn?: number } = {}) {
    const body = { resource, role: options.role ?? 'viewer', expires_in: options.expiresIn };
    return ok(this.client.api.POST('/v0/shares', { body })) as Promise<ShareMinted>;
  }

  /** The drive's changes as they happen (the SSE stream, resumed without gaps). */
  events(options: FollowOptions = {}): AsyncGenerator<EventOut> {
    return followEvents(this.client, options);
  }
}
