import { Readable } from 'node:stream';
import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import { getArtifactByPath, uploadArtifact } from './artifacts.js';
import { checkNotWiki } from './artifact-rules.js';
import { blobOfRow } from './content.js';
import { applyChunks, type ChunkFailure } from './patch-apply.js';
import { parsePatch, type PatchOp } from './patch-parse.js';
import { deleteByRef, moveByRef } from './ref-writes.js';
import { blobBytes } from './text.js';

/**
 * POST /v0/patch and MCP apply_patch (docs/decisions/apply-patch.md): a V4A patch checked whole against the current
 * files (every hunk, every precondition, no add over a live file) before anything is written, so a hunk that does not
 * apply in the last file leaves every file unchanged; then written through the drive's write operations, each with
 * If-Match = the version the patch was checked on (a concurrent write fails the rest with 412).
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

const upload = (rc: RequestContext, path: string, text: string, ifMatch?: number) => {
  const bytes = Buffer.from(text, 'utf8');
  return uploadArtifact(
    rc,
    { path, sentAsText: true, ifMatch },
    { stream: Readable.from([bytes]), declaredBytes: bytes.length },
  );
};

async function write(rc: RequestContext, p: Planned): Promise<PatchFileResult> {
  const { op } = p;
  if (op.kind === 'add')
    return { path: op.path, action: 'add', version: (await upload(rc, op.path, p.text!)).version_number };
  if (op.kind === 'delete') {
    await deleteByRef(rc, { ref: p.artId!, recursive: false, ifMatch: p.version });
    return { path: op.path, action: 'delete' };
  }
  let path = op.path;
  if (op.moveTo) (await moveByRef(rc, { ref: p.artId!, path: op.moveTo, ifMatch: p.version }), (path = op.moveTo));
  const row = await upload(rc, path, p.text!, p.version);
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
  const checked = [];
  for (const op of ops) checked.push(await plan(rc, op, preconditions));
  if (checked.some((c) => c.error)) {
    const files = checked.map(({ planned, error }) => ({
      path: planned.op.path,
      action: planned.op.kind,
      ...(error ? { error } : {}),
    }));
    throw new AppError('PATCH_NOT_APPLIED', 'the patch did not apply; no file was changed', { files });
  }
  const files: PatchFileResult[] = [];
  for (const { planned } of checked) files.push(await write(rc, planned));
  return { applied: true, files };
}
