import type { Readable } from 'node:stream';
import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import type { RequestContext } from '../platform/request-context.js';
import { spoolBody, type SpooledBody } from '../storage/spool.js';
import {
  artifactNotFound,
  getLiveArtifact,
  getLiveArtifactByPath,
  type ArtifactRow,
} from '../records/artifact-records.js';
import { checkNotWiki, checkPath, fileTypeOf, preconditionFailed, type Source } from './artifact-rules.js';
import { prepareBlob, type BlobArrival, type EarlyQuota } from './blobs.js';
import { insertArtifactSql, versioned, writeVersioned } from './version-write.js';
import { EventAction } from './events.js';
import { writeTransaction, type WriteTx } from './write-transaction.js';
import { isUniqueViolation, one } from '../db/sql.js';
import { authorize, driveFor, permissionDenied, roleCan, type Role } from '../access/authorize.js';
import { checkUploadFields, type UploadFields } from './upload-fields.js';
import { keptFilename } from './file-names.js';
import { applyVisibility } from './visibility.js';
import { DEFAULT_CONTENT_TYPE, type PutInput } from './put-input.js';
import { isPlainPut, leaseMayHold, plainPut } from './plain-put.js';
import { mergeWrite, type MergedRow } from './merge-write.js';

export { DEFAULT_CONTENT_TYPE, type PutInput } from './put-input.js';

/** Read, create, overwrite (new version), rename and copy. Every change records its event in the same transaction. */

/** GET by id (record or meta): the caller's own artifact, or one a grant lets it read. */
export async function getArtifact(rc: RequestContext, artId: string): Promise<ArtifactRow> {
  return (await authorize(rc, { artId }, 'read')).artifact!;
}

/** GET by path (meta). */
export async function getArtifactByPath(rc: RequestContext, path: string): Promise<ArtifactRow> {
  const row = await getLiveArtifactByPath(rc.app.orm.em.fork(), rc.driveId, checkPath(path));
  if (!row) throw artifactNotFound();
  return row;
}

/**
 * The viewer's path form `{web_url}/{drive_id}/{path}`: the live artifact at a path of a named
 * drive, when the caller may read it (its own drive, a grant, `anyone:viewer`); otherwise the same
 * 404 as an absent path, so a path's existence never leaks.
 */
export async function getArtifactAt(rc: RequestContext, driveId: string, path: string): Promise<ArtifactRow> {
  const db = rc.app.orm.em.fork();
  const row = await getLiveArtifactByPath(db, driveId, checkPath(path));
  if (!row) throw artifactNotFound();
  return (await authorize(rc, { artId: row.id }, 'read', db)).artifact!;
}

/** An upload body as it arrives: read once, at most the per-artifact limit. */
export interface IncomingBody {
  stream: Readable;
  /** The declared length (Content-Length), refused early when over the limit. */
  declaredBytes?: number;
}

/**
 * PUT /v0/artifacts/{path}: checks what can be checked before reading (path, _wiki/, If-Match,
 * declared size), spools and hashes the body, stores the bytes and commits the version with its event.
 */
export async function uploadArtifact(
  rc: RequestContext,
  upload: UploadFields & { path: string },
  incoming: IncomingBody,
): Promise<MergedRow> {
  const fields = checkUploadFields(upload, upload.path);
  return uploadWith(rc, { ...fields, driveId: rc.driveId, actor: rc.actor, path: upload.path }, incoming);
}

/**
 * PUT /v0/artifacts/{art_id}: a new version of an existing artifact, on whichever drive it lives
 * (the caller's own, or another's through a grant with `write`). Omitted fields keep their values.
 */
export async function uploadArtifactById(
  rc: RequestContext,
  artId: string,
  upload: UploadFields,
  incoming: IncomingBody,
): Promise<MergedRow> {
  const fields = checkUploadFields(upload);
  const access = await authorize(rc, { artId }, 'write');
  const current = access.artifact!;
  // Visibility is an anyone:viewer grant, so changing it takes can_manage.
  if (fields.visibility !== undefined && !roleCan(access.role, 'can_manage'))
    throw permissionDenied('can_manage', access.role as Role);
  const grantee = access.owner
    ? undefined
    : { drive_id: rc.principal.driveId, identity_id: rc.principal.identityId, role: access.role };
  return uploadWith(
    rc,
    { ...fields, driveId: access.driveId, actor: rc.actor, path: current.path, artId, grantee },
    incoming,
  );
}

async function uploadWith(rc: RequestContext, given: PutInput, incoming: IncomingBody): Promise<MergedRow> {
  const ctx = rc.app;
  const input = { ...given, filename: keptFilename(given.path, given.filename) };
  await preflightPut(ctx, input);
  const maxBytes = ctx.config.limits.maxUploadBytes;
  if ((incoming.declaredBytes ?? 0) > maxBytes) throw tooLarge(maxBytes);
  const spooled = await spoolBody(incoming.stream, { maxBytes, memoryBytes: ctx.config.limits.uploadSpoolMemoryBytes });
  if (spooled.tooLarge) throw tooLarge(maxBytes);
  try {
    const ifMatch = input.ifMatch;
    if (input.merge && ifMatch !== undefined)
      return await mergeWrite(rc, { ...input, ifMatch }, spooled, (i, body) => putArtifact(ctx, i, body));
    return await putArtifact(ctx, input, spooled);
  } finally {
    await spooled.dispose();
  }
}

const tooLarge = (maxBytes: number) =>
  new AppError('ARTIFACT_TOO_LARGE', `upload body is over the ${maxBytes}-byte limit`, { limit_bytes: maxBytes });

/** Cheap checks before any byte is read or stored, so a doomed upload writes nothing. They are repeated under lock. */
export async function preflightPut(ctx: AppContext, input: PutInput): Promise<void> {
  checkPath(input.path);
  checkNotWiki(input.path);
  if (input.ifMatch === undefined) return;
  const current = await getLiveArtifactByPath(ctx.orm.em.fork(), input.driveId, input.path);
  if (input.artId && current?.id !== input.artId) throw artifactNotFound();
  // A merge accepts an older If-Match (src/files/merge-write.ts); never a newer one.
  const behind = input.merge && current && input.ifMatch < current.version_number;
  if (!current || (current.version_number !== input.ifMatch && !behind))
    throw preconditionFailed(current?.version_number ?? null);
}

/**
 * Stores the bytes by hash (small ones inline, by the transaction itself), then creates the artifact or appends a
 * version under a row lock.
 */
async function putArtifact(ctx: AppContext, input: PutInput, body: SpooledBody): Promise<ArtifactRow> {
  const arrival = await prepareBlob(ctx, body, earlyQuota(ctx, input.driveId));
  // The one-statement PUT asks the drive's leases inside its statement; where one may hold, the checked path decides.
  if (isPlainPut(input))
    try {
      return await plainPut(ctx, input, body, arrival);
    } catch (err) {
      if (!leaseMayHold(err)) throw err;
    }
  return writeTransaction(ctx, (w) => putStoredArtifact(ctx, w, input, body, arrival));
}

/** The drive's quota, checked before bytes go to S3 (prepareBlob) and again, atomically, by the write. */
export const earlyQuota = (ctx: AppContext, driveId: string): EarlyQuota => ({
  driveId,
  quotaBytes: ctx.config.limits.storageQuotaBytes,
});

/** Bytes already in object storage under their hash (a spooled body after storeBlob, or a committed large upload). */
export type StoredBody = Pick<SpooledBody, 'hash' | 'size'>;

/**
 * The create-or-append step of putArtifact inside the caller's write transaction (the large-upload
 * commit adds its own rows to it). `arrival`: how the bytes got there (pinBlob): put just now (the version's
 * transaction marks the blob stored), already stored, or kept inline by this transaction.
 */
export async function putStoredArtifact(
  ctx: AppContext,
  w: WriteTx,
  input: PutInput,
  body: StoredBody,
  arrival: BlobArrival,
): Promise<ArtifactRow> {
  for (;;) {
    if (input.artId || input.ifMatch !== undefined) {
      const current = await getLiveArtifactByPath(w.tx, input.driveId, input.path, true);
      // Upload by id: the artifact moved or went to the trash since it was authorized.
      if (input.artId && current?.id !== input.artId) throw artifactNotFound();
      if (!current) throw preconditionFailed(null);
      return appendVersion(ctx, w, current, input, body, arrival);
    }
    const put = await createOrLock(ctx, w, input, body, arrival);
    if (put.live) return appendVersion(ctx, w, put.live, input, body, arrival);
    if (put.written) return put.written;
    // Another request created the path first and has committed: overwrite it instead.
  }
}

/**
 * Locks the path's live artifact (returned as `live`), or, when there is none, creates it with its version and event
 * (`written`) in the same statement; neither when a concurrent request has just created the path.
 */
async function createOrLock(
  ctx: AppContext,
  w: WriteTx,
  input: PutInput,
  body: StoredBody,
  arrival: BlobArrival,
): Promise<{ written?: ArtifactRow; live?: ArtifactRow }> {
  const contentType = input.contentType ?? DEFAULT_CONTENT_TYPE;
  const put = await versioned(
    ctx,
    w,
    {
      sql: insertArtifactSql('exists (select from live)'),
      params: [
        newId('art'),
        input.driveId,
        input.path,
        contentType,
        fileTypeOf(input.path, contentType),
        body.size,
        body.hash,
        input.labels ?? [],
        JSON.stringify(input.metadata ?? {}),
        input.source ? JSON.stringify(input.source) : null,
        'private',
        input.filename ?? null,
      ],
    },
    { actor: input.actor, changeSummary: input.changeSummary, arrival, system: input.system },
    {
      sql: `select * from artifacts where drive_id = ? and path = ? and deleted_at is null for update`,
      params: [input.driveId, input.path],
    },
  );
  const row = put.written;
  if (!row) return put;
  await w.event({
    driveId: row.drive_id,
    artId: row.id,
    action: EventAction.artifactCreated,
    actor: input.actor,
    metadata: {
      path: row.path,
      version_number: 1,
      size_bytes: body.size,
      hash: body.hash,
      change_summary: input.changeSummary,
    },
  });
  return { written: await applyVisibility(w, row, input.visibility, input.actor) };
}

async function appendVersion(
  ctx: AppContext,
  w: WriteTx,
  current: ArtifactRow,
  input: PutInput,
  body: StoredBody,
  arrival: BlobArrival,
): Promise<ArtifactRow> {
  if (input.ifMatch !== undefined && input.ifMatch !== current.version_number)
    throw preconditionFailed(current.version_number);
  const contentType = input.contentType ?? current.content_type;
  const row = (await writeVersioned(
    ctx,
    w,
    `update artifacts set version_number = version_number + 1, size_bytes = ?, hash = ?, content_type = ?, file_type = ?,
       labels = case when ? then array[?]::text[] else labels end, metadata = coalesce(?::jsonb, metadata),
       source = case when ? then ?::jsonb else source end, filename = coalesce(?, filename),
       updated_at = clock_timestamp(), indexed_at = null, embedded_at = null
     where id = ? returning *`,
    [
      body.size,
      body.hash,
      contentType,
      fileTypeOf(current.path, contentType),
      input.labels !== undefined,
      input.labels ?? [],
      input.metadata ? JSON.stringify(input.metadata) : null,
      input.source !== undefined,
      input.source ? JSON.stringify(input.source) : null,
      input.filename ?? null,
      current.id,
    ],
    { actor: input.actor, changeSummary: input.changeSummary, arrival, system: input.system },
  ))!;
  await w.event({
    driveId: row.drive_id,
    artId: row.id,
    action: EventAction.artifactUpdated,
    actor: input.actor,
    metadata: {
      path: row.path,
      version_number: row.version_number,
      size_bytes: body.size,
      hash: body.hash,
      change_summary: input.changeSummary,
      ...(input.grantee ? { grantee: input.grantee } : {}),
    },
  });
  return applyVisibility(w, row, input.visibility, input.actor);
}

const pathConflict = (path: string) =>
  new AppError('PATH_CONFLICT', `a live artifact already exists at ${path}`, { path });

/** PATCH /v0/artifacts/{art_id}: only path and updated_at change; emits artifact.renamed. */
export async function renameArtifact(
  rc: RequestContext,
  input: { artId: string; path: string; ifMatch?: number },
): Promise<ArtifactRow> {
  checkPath(input.path);
  const a = { ...input, driveId: await driveFor(rc, { artId: input.artId }, 'can_manage'), actor: rc.actor };
  return writeTransaction(rc.app, (w) => renameInTransaction(w, a));
}

/** The rename's rows inside the caller's write transaction (a patch's move joins its other files there). */
export async function renameInTransaction(
  w: WriteTx,
  a: { driveId: string; artId: string; path: string; ifMatch?: number; actor: string | null },
): Promise<ArtifactRow> {
  const current = await getLiveArtifact(w.tx, a.driveId, a.artId, true);
  checkNotWiki(current.path);
  checkNotWiki(a.path);
  if (a.ifMatch !== undefined && a.ifMatch !== current.version_number) throw preconditionFailed(current.version_number);
  if (current.path === a.path) return current;
  if (await getLiveArtifactByPath(w.tx, a.driveId, a.path)) throw pathConflict(a.path);
  let row: ArtifactRow;
  try {
    row = (await one<ArtifactRow>(
      w.tx,
      `update artifacts set path = ?, file_type = ?, updated_at = clock_timestamp() where id = ? returning *`,
      [a.path, fileTypeOf(a.path, current.content_type), current.id],
    ))!;
  } catch (err) {
    if (isUniqueViolation(err)) throw pathConflict(a.path);
    throw err;
  }
  await w.event({
    driveId: a.driveId,
    artId: row.id,
    action: EventAction.artifactRenamed,
    actor: a.actor,
    metadata: { from: current.path, to: row.path, path: row.path },
  });
  return row;
}

/** POST /v0/artifacts/{art_id}/copy: a new artifact at version 1 sharing the bytes; its size counts toward quota. */
export async function copyArtifact(
  rc: RequestContext,
  input: { artId: string; path: string; source?: Source | null },
): Promise<ArtifactRow> {
  const ctx = rc.app;
  checkPath(input.path);
  checkNotWiki(input.path);
  const a = { ...input, driveId: await driveFor(rc, { artId: input.artId }, 'can_manage'), actor: rc.actor };
  return writeTransaction(ctx, async (w) => {
    const src = await one<ArtifactRow>(
      w.tx,
      `select * from artifacts where id = ? and drive_id = ? and deleted_at is null for share`,
      [a.artId, a.driveId],
    );
    if (!src) throw artifactNotFound();
    const source = a.source ?? { refs: [{ type: 'artifact', id: src.id }] };
    let row: ArtifactRow | undefined;
    try {
      row = await writeVersioned(
        ctx,
        w,
        insertArtifactSql(),
        [
          newId('art'),
          a.driveId,
          a.path,
          src.content_type,
          fileTypeOf(a.path, src.content_type),
          src.size_bytes,
          src.hash,
          src.labels,
          JSON.stringify(src.metadata),
          JSON.stringify(source),
          'private',
          src.filename,
        ],
        { actor: a.actor, changeSummary: null },
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw pathConflict(a.path);
      throw err;
    }
    if (!row) throw pathConflict(a.path);
    await w.event({
      driveId: a.driveId,
      artId: row.id,
      action: EventAction.artifactCopied,
      actor: a.actor,
      metadata: {
        path: row.path,
        version_number: 1,
        source_art_id: src.id,
        source_version_number: src.version_number,
        hash: src.hash,
      },
    });
    return row;
  });
}
