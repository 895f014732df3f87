import { DriveClient, ok, type DriveClientOptions } from './client.js';
import { leasesOf } from './leases.js';
import { DriveError } from './errors.js';
import { followEvents, type FollowOptions } from './events.js';
import {
  createSnapshot,
  listRuns,
  listSnapshots,
  newRunId,
  revertRun,
  rewindTo,
  seqOf,
  type Point,
} from './history.js';
import { uploadBytes, type UploadOptions } from './uploads.js';
import type {
  ArtifactOut,
  ArtifactPage,
  DeleteOut,
  EditOut,
  EventOut,
  FindPage,
  RevertOut,
  RewindOut,
  RunPage,
  SearchPage,
  SnapshotOut,
  ShareMinted,
  TextLines,
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

  /**
   * Without a `runId` of its own, each `Drive` is one run (`sdk-<time>-<random>`): what this program changed is
   * undone by `drive.undo()`, not mixed with other scripts on the same key. A `DriveClient` passed in keeps its own.
   */
  constructor(options: DriveClientOptions | DriveClient) {
    this.client =
      options instanceof DriveClient
        ? options
        : new DriveClient({ ...options, runId: options.runId === undefined ? newRunId('sdk') : options.runId });
  }

  /** The run this instance's changes are filed under (undefined: the server's default). */
  get runId(): string | undefined {
    return this.client.runId;
  }

  /** Writes `content` at `path` (a new version when the path holds a file). */
  put(path: string, content: string | Uint8Array, options: UploadOptions = {}): Promise<ArtifactOut> {
    const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    const contentType = options.contentType ?? (typeof content === 'string' ? 'text/plain; charset=utf-8' : undefined);
    return uploadBytes(this.client, path, bytes, { ...options, contentType });
  }

  /** The record of a file (by id or path); with `asOf` (a seq or a snapshot id), as it was then. */
  async stat(ref: Ref, options: { asOf?: Point } = {}): Promise<ArtifactOut> {
    const as_of = options.asOf === undefined ? undefined : await seqOf(this.client, options.asOf);
    if (ART_ID.test(ref))
      return ok(this.client.api.GET('/v0/artifacts/{art_id}', { params: { path: { art_id: ref }, query: { as_of } } }));
    return ok(this.client.api.GET('/v0/artifacts/{path}/meta', { params: { path: { path: ref }, query: { as_of } } }));
  }

  /** A file's bytes: current, `version`, or the version it had `asOf` a seq or snapshot (trashed since or not). */
  async get(ref: Ref, options: { version?: number; asOf?: Point } = {}): Promise<Uint8Array> {
    const asOf = options.asOf === undefined ? undefined : await seqOf(this.client, options.asOf);
    const { art_id } = await this.stat(ref, { asOf });
    const res = await this.client.fetch(
      asOf !== undefined
        ? `/v0/artifacts/${art_id}/download?as_of=${asOf}`
        : options.version === undefined
          ? `/v0/artifacts/${art_id}/download`
          : `/v0/artifacts/${art_id}/versions/${options.version}/download`,
    );
    if (!res.ok) throw await DriveError.fromResponse(res);
    return new Uint8Array(await res.arrayBuffer());
  }

  /** A file's text (UTF-8). */
  async text(ref: Ref, options: { version?: number; asOf?: Point } = {}): Promise<string> {
    return new TextDecoder().decode(await this.get(ref, options));
  }

  /**
   * Lines of a file's text (a document's: of one `unit`), from `start` (1-based) `count` of them (all by default);
   * `numbered` numbers them as the memory tool views a file (6 wide, a tab). `last_line` and `total_lines` page on.
   */
  async lines(
    ref: Ref,
    options: { start?: number; count?: number; numbered?: boolean; unit?: number } = {},
  ): Promise<TextLines> {
    const { art_id } = await this.stat(ref);
    const query = {
      line_start: options.start,
      line_count: options.count,
      numbered: options.numbered === undefined ? undefined : options.numbered ? ('true' as const) : ('false' as const),
      unit: options.unit,
    };
    return ok(this.client.api.GET('/v0/artifacts/{art_id}/text', { params: { path: { art_id }, query } }));
  }

  /**
   * Edits a text file as ONE new version: each `oldText` → `newText` (once, or every one with `replaceAll`), in order,
   * then `insertText` after line `insertLine` (0: at the top). `dryRun` answers the diff and writes nothing;
   * `ifMatch` is the version the edit expects (412 otherwise, or with `merge` a three-way merge).
   */
  async edit(
    ref: Ref,
    options: {
      edits?: { oldText: string; newText: string; replaceAll?: boolean }[];
      insertLine?: number;
      insertText?: string;
      dryRun?: boolean;
      ifMatch?: number;
      merge?: boolean;
      changeSummary?: string;
    },
  ): Promise<EditOut> {
    const { art_id } = await this.stat(ref);
    const body = {
      edits: options.edits?.map((e) => ({ old_text: e.oldText, new_text: e.newText, replace_all: e.replaceAll })),
      insert_line: options.insertLine,
      insert_text: options.insertText,
      dry_run: options.dryRun,
      merge: options.merge,
      change_summary: options.changeSummary,
    };
    const header = options.ifMatch === undefined ? undefined : { 'if-match': String(options.ifMatch) };
    return ok(this.client.api.POST('/v0/artifacts/{art_id}/edit', { params: { path: { art_id }, header }, body }));
  }

  /** One page of files under `prefix` (live now, or `asOf` a seq or snapshot), by path; `next_cursor` pages on. */
  async list(
    options: { prefix?: string; label?: string[]; cursor?: string; limit?: number; asOf?: Point } = {},
  ): Promise<ArtifactPage> {
    const { asOf, ...query } = options;
    const as_of = asOf === undefined ? undefined : await seqOf(this.client, asOf);
    return ok(this.client.api.GET('/v0/artifacts', { params: { query: { ...query, as_of } } }));
  }

  /** Recent runs (each task's changes), newest first. */
  runs(options: { cursor?: string; limit?: number } = {}): Promise<RunPage> {
    return listRuns(this.client, options);
  }

  /**
   * Undoes a run, by default this instance's own (a new run, itself undoable). `dryRun` previews each change;
   * 409 RUN_CONFLICT names what another run changed since, unless `force` skips those.
   */
  undo(runId?: string, options: { dryRun?: boolean; force?: boolean } = {}): Promise<RevertOut> {
    const id = runId ?? this.runId;
    if (!id) throw new DriveError(400, 'INVALID_ARGUMENT', 'no run to undo: pass a run id (see drive.runs())');
    return revertRun(this.client, id, options);
  }

  /** Leases with fencing tokens: acquire/renew/release/list (send `fence` as X-Drive-Fence on writes). */
  get leases() {
    return leasesOf(this.client);
  }

  /** Names the drive as it is now (a seq), to read back with `asOf` or `rewind` to. */
  snapshot(label: string): Promise<SnapshotOut> {
    return createSnapshot(this.client, label);
  }

  /** The drive's snapshots, newest first. */
  snapshots(): Promise<SnapshotOut[]> {
    return listSnapshots(this.client);
  }

  /** Puts the drive (or `prefix`) back as it was at a seq or snapshot, as one revertible run; `dryRun` previews. */
  rewind(to: Point, options: { prefix?: string; dryRun?: boolean; force?: boolean } = {}): Promise<RewindOut> {
    return rewindTo(this.client, to, options);
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
