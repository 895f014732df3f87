import { AppError } from '../../lib/errors.js';
import type { RequestContext } from '../../platform/request-context.js';
import type { ArtifactRow } from '../../records/artifact-records.js';
import { driveFor } from '../../access/authorize.js';
import { earlyQuota, getArtifactByPath, putStoredArtifact, renameInTransaction } from '../artifacts.js';
import { checkNotWiki, preconditionFailed } from '../artifact-rules.js';
import { prepareText, type PreparedText } from '../blobs.js';
import { blobOfRow } from '../content.js';
import { applyChunks, type ChunkFailure } from './patch-apply.js';
import { parsePatch, type PatchOp } from './patch-parse.js';
import { blobBytes } from '../text.js';
import { trashInTransaction } from '../trash.js';
import { checkUploadFields } from '../upload-fields.js';
import { writeTransaction, type WriteTx } from '../write-transaction.js';

/**
 * POST /v0/patch and MCP apply_patch (docs/decisions/apply-patch.md): a V4A patch checked whole against the current
 * files (every hunk, every precondition, no add over a live file) before anything is written, so a hunk that does not
 * apply in the last file answers 409 with nothing stored. Then the new texts are stored by hash, and every file's rows
 * and events are written in ONE write transaction, each under its row lock with If-Match = the version the patch was
 * checked on: a concurrent writer makes the whole patch a 412 and no file changes; every event is the request's run.
 */
export interface PatchFileResult {
  path: string;
  action: 'add' | 'update' | 'delete' | 'move';
  version?: number;
  moved_to?: string;
  error?: { message: string } & Partial<ChunkFailure>;
}

interface Planned {
  op: PatchOp;
  artId?: string;
  version?: number;
  text?: string;
  /** The new text's bytes, stored under their hash before the transaction. */
  body?: PreparedText;
}

const strip = (p: string) => p.replace(/^\/+/, '');

async function current(rc: RequestContext, path: string) {
  try {
    return await getArtifactByPath(rc, path);
  } catch (err) {
    if (err instanceof AppError && err.code === 'ARTIFACT_NOT_FOUND') return null;
    throw err;
  }
}

async function plan(
  rc: RequestContext,
  op: PatchOp,
  preconditions: Record<string, number>,
): Promise<{ planned: Planned; error?: PatchFileResult['error'] }> {
  const planned: Planned = { op };
  const fail = (message: string, extra: Partial<ChunkFailure> = {}) => ({ planned, error: { message, ...extra } });
  checkNotWiki(op.path);
  const row = await current(rc, op.path);
  const expected = preconditions[op.path];
  if (expected !== undefined && row?.version_number !== expected)
    return fail(`precondition failed: expected version ${expected}, found ${row?.version_number ?? 'no file'}`);
  if (op.kind === 'add') {
    if (row) return fail(`${op.path} already exists (version ${row.version_number})`);
    planned.text = op.text;
    return { planned };
  }
  if (!row) return fail(`${op.path} does not exist`);
  planned.artId = row.id;
  planned.version = row.version_number;
  if (op.kind === 'delete') return { planned };
  if (op.moveTo && (checkNotWiki(op.moveTo), await current(rc, op.moveTo))) return fail(`${op.moveTo} already exists`);
  const text = (await blobBytes(rc, blobOfRow(row))).toString('utf8');
  const applied = applyChunks(text, op.chunks);
  if ('failure' in applied) return fail(applied.failure.message, applied.failure);
  planned.text = applied.text;
  return { planned };
}

/** The new version of a text at `path` (the PUT's rows: lock, If-Match, version, event) in the patch's transaction. */
function putText(rc: RequestContext, w: WriteTx, path: string, body: PreparedText, ifMatch?: number) {
  const fields = checkUploadFields({ sentAsText: true, ifMatch }, path);
  const input = { ...fields, driveId: rc.driveId, path, actor: rc.actor, filename: undefined };
  return putStoredArtifact(rc.app, w, input, body, body.arrival);
}

async function write(rc: RequestContext, w: WriteTx, p: Planned): Promise<PatchFileResult> {
  const { op } = p;
  const actor = rc.actor;
  if (op.kind === 'add') {
    const row = await putText(rc, w, op.path, p.body!);
    // Created since the check: the add would have overwritten it.
    if (row.version_number !== 1) throw preconditionFailed(row.version_number - 1);
    return { path: op.path, action: 'add', version: row.version_number };
  }
  if (op.kind === 'delete') {
    await trashInTransaction(rc.app, w, { driveId: rc.driveId, artId: p.artId, ifMatch: p.version, actor });
    return { path: op.path, action: 'delete' };
  }
  let moved: ArtifactRow | undefined;
  if (op.moveTo) {
    const move = { driveId: rc.driveId, artId: p.artId!, path: op.moveTo, ifMatch: p.version, actor };
    moved = await renameInTransaction(w, move);
  }
  const row = await putText(rc, w, moved?.path ?? op.path, p.body!, p.version);
  return {
    path: op.path,
    action: op.moveTo ? 'move' : 'update',
    version: row.version_number,
    moved_to: op.moveTo ?? undefined,
  };
}

export async function applyPatch(rc: RequestContext, input: { patch: string; preconditions?: Record<string, number> }) {
  const ops = parsePatch(input.patch).map((op) =>
    op.kind === 'update'
      ? { ...op, path: strip(op.path), moveTo: op.moveTo && strip(op.moveTo) }
      : { ...op, path: strip(op.path) },
  );
  const preconditions = Object.fromEntries(Object.entries(input.preconditions ?? {}).map(([k, v]) => [strip(k), v]));
  const paths = ops.map((o) => o.path);
  if (new Set(paths).size !== paths.length) throw new AppError('INVALID_PATCH', 'a patch names each file once');
  const checked: Awaited<ReturnType<typeof plan>>[] = [];
  for (const op of ops) checked.push(await plan(rc, op, preconditions));
  if (checked.some((c) => c.error)) {
    const files = checked.map(({ planned, error }) => ({
      path: planned.op.path,
      action: planned.op.kind,
      ...(error ? { error } : {}),
    }));
    throw new AppError('PATCH_NOT_APPLIED', 'the patch did not apply; no file was changed', { files });
  }
  const owner = earlyQuota(rc.app, rc.driveId);
  for (const { planned } of checked) {
    if (planned.op.kind !== 'add') await driveFor(rc, { artId: planned.artId! }, 'can_manage');
    if (planned.text !== undefined) planned.body = await prepareText(rc.app, planned.text, owner);
  }
  const files = await writeTransaction(rc.app, async (w) => {
    const done: PatchFileResult[] = [];
    for (const { planned } of checked) done.push(await write(rc, w, planned));
    return done;
  });
  return { applied: true, files };
}
