import { ok, type DriveClient } from '../../client.js';
import { DriveError } from '../../errors.js';
import { eachItem } from '../../paging.js';
import type { ArtifactOut } from '../../types.js';
import { uploadBytes } from '../../uploads.js';
import { contentTypeOf } from '../command-kit.js';

/** The drive side of two-way sync: listing under the prefix, downloads, and the writes with their preconditions. */
export interface RemoteFile {
  path: string;
  art_id: string;
  version: number;
  hash: string;
  filename: string | null;
}

const remoteOf = (a: ArtifactOut): RemoteFile => ({
  path: a.path,
  art_id: a.art_id,
  version: a.version_number,
  hash: a.hash.replace(/^sha256:/, ''),
  filename: a.filename ?? null,
});

export async function listRemote(client: DriveClient, prefix: string): Promise<Map<string, RemoteFile>> {
  const out = new Map<string, RemoteFile>();
  const pages = eachItem((cursor) =>
    ok(client.api.GET('/v0/artifacts', { params: { query: { prefix, cursor, limit: 100 } } })),
  );
  for await (const a of pages) out.set(a.path, remoteOf(a));
  return out;
}

/** The drive's newest seq (0 for an empty feed): where a pass's view of the drive is at least. */
export async function newestSeq(client: DriveClient): Promise<number> {
  const page = await ok(client.api.GET('/v0/events', { params: { query: { limit: 1 } } }));
  return Number(page.items[0]?.seq ?? 0);
}

export async function download(client: DriveClient, artId: string): Promise<Buffer> {
  const res = await client.fetch(`/v0/artifacts/${artId}/download`);
  if (!res.ok) throw await DriveError.fromResponse(res);
  return Buffer.from(await res.arrayBuffer());
}

/** A write of local bytes: If-Match the version both sides last agreed on; `merge` merges three-way from it. */
export async function upload(
  client: DriveClient,
  path: string,
  bytes: Buffer,
  options: { ifMatch?: number; merge?: boolean; filename?: string; metadata?: Record<string, unknown> } = {},
): Promise<RemoteFile & { merged: boolean }> {
  const a = await uploadBytes(client, path, bytes, {
    contentType: contentTypeOf(path),
    ifMatch: options.ifMatch,
    merge: options.merge,
    filename: options.filename,
    metadata: options.metadata,
  });
  return { ...remoteOf(a), merged: !!(a as { merged?: unknown }).merged };
}

export async function moveRemote(client: DriveClient, artId: string, to: string, ifMatch: number) {
  return remoteOf(
    await ok(
      client.api.PATCH('/v0/artifacts/{art_id}', {
        params: { path: { art_id: artId }, header: { 'if-match': String(ifMatch) } },
        body: { path: to },
      }),
    ),
  );
}

export async function deleteRemote(client: DriveClient, artId: string, ifMatch: number): Promise<void> {
  await ok(
    client.api.DELETE('/v0/artifacts/{art_id}', {
      params: { path: { art_id: artId }, header: { 'if-match': String(ifMatch) } },
    }),
  );
}

/** A refusal that only means "the drive moved on since this pass looked": the next pass sees the new state. */
export const isStale = (err: unknown) =>
  err instanceof DriveError && (err.status === 412 || err.status === 404 || err.code === 'PATH_CONFLICT');
