import { Readable } from 'node:stream';
import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import { artifactNotFound, getLiveArtifactByPath, type ArtifactRow } from '../records/artifact-records.js';
import { spoolBody, type SpooledBody } from '../storage/spool.js';
import { fileTypeOf, preconditionFailed } from './artifact-rules.js';
import { mergeConflict, mergeThreeWay } from './merge.js';
import type { PutInput } from './put-input.js';
import { isTextual, readArtifactText } from './text.js';

/**
 * A write with If-Match: n and X-Drive-Merge: three-way (docs/decisions/merge.md). n equal to the current version:
 * a plain write. n older: the body is merged with the current version against version n; clean → the merged text
 * is written as a new version over the current one (`merged` says from what), overlapping → 409 MERGE_CONFLICT
 * before any byte is stored. Binary on any side → the usual 412 PRECONDITION_FAILED.
 */
export interface MergedFrom {
  base: number;
  theirs: number;
}

export type MergedRow = ArtifactRow & { merged?: MergedFrom };

/** A write that lands between the merge and its commit makes the merge stale: merge again, a few times. */
const MERGE_ATTEMPTS = 3;

async function bytesOf(body: SpooledBody): Promise<Buffer> {
  const b = body.body();
  if (Buffer.isBuffer(b)) return b;
  const chunks: Buffer[] = [];
  for await (const c of b) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function textOrNull(bytes: Buffer): string | null {
  try {
    const text = strictUtf8.decode(bytes);
    return text.includes('\0') ? null : text;
  } catch {
    return null;
  }
}

/** Version n's text, or null when that version is not text (its content type, or bytes that are not UTF-8). */
async function versionText(rc: RequestContext, artId: string, versionNumber: number): Promise<string | null> {
  try {
    return (await readArtifactText(rc, { artId, versionNumber })).text;
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_TEXT') return null;
    throw err;
  }
}

export async function mergeWrite(
  rc: RequestContext,
  input: PutInput & { ifMatch: number },
  body: SpooledBody,
  put: (input: PutInput, body: SpooledBody) => Promise<ArtifactRow>,
): Promise<MergedRow> {
  const limits = rc.app.config.limits;
  const ours = textOrNull(await bytesOf(body));
  for (let attempt = 1; ; attempt++) {
    const current = await getLiveArtifactByPath(rc.app.orm.em.fork(), input.driveId, input.path);
    if (input.artId && current?.id !== input.artId) throw artifactNotFound();
    if (!current || input.ifMatch > current.version_number) throw preconditionFailed(current?.version_number ?? null);
    if (input.ifMatch === current.version_number) return put(input, body);
    const contentType = input.contentType ?? current.content_type;
    const textual = isTextual(fileTypeOf(current.path, contentType), contentType);
    const [base, theirs] = await Promise.all([
      versionText(rc, current.id, input.ifMatch),
      versionText(rc, current.id, current.version_number),
    ]);
    if (!textual || ours === null || base === null || theirs === null) throw preconditionFailed(current.version_number);
    const outcome = mergeThreeWay(base, ours, theirs);
    if (!outcome.clean) throw mergeConflict(input.ifMatch, current.version_number, current.path, outcome.conflicts);
    const merged = await spoolBody(Readable.from([Buffer.from(outcome.text, 'utf8')]), {
      maxBytes: limits.maxUploadBytes,
      memoryBytes: limits.uploadSpoolMemoryBytes,
    });
    if (merged.tooLarge)
      throw new AppError('ARTIFACT_TOO_LARGE', `the merged text is over the ${limits.maxUploadBytes}-byte limit`, {
        limit_bytes: limits.maxUploadBytes,
      });
    try {
      const row: MergedRow = await put({ ...input, ifMatch: current.version_number }, merged);
      row.merged = { base: input.ifMatch, theirs: current.version_number };
      return row;
    } catch (err) {
      const raced = err instanceof AppError && err.code === 'PRECONDITION_FAILED';
      if (!raced || attempt >= MERGE_ATTEMPTS) throw err;
    } finally {
      await merged.dispose();
    }
  }
}
