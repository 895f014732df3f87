import { Readable } from 'node:stream';
import { createTwoFilesPatch } from 'diff';
import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import { checkChangeSummary, checkNotWiki, preconditionFailed } from './artifact-rules.js';
import { uploadArtifactById } from './artifacts.js';
import type { MergedRow } from './merge-write.js';
import type { ContentTarget } from './content.js';
import { readArtifactText } from './text.js';

/**
 * Exact-text edits of a text artifact (the MCP `edit` tool): each `oldText` must occur exactly once
 * (or `replaceAll`), applied in order. A dry run returns the unified diff and writes nothing; an
 * applied edit writes ONE new version with If-Match = the version the edit was computed on, so two
 * concurrent editors never overwrite each other silently (the second gets 412 and re-reads).
 */
export interface TextEdit {
  oldText: string;
  newText: string;
  replaceAll?: boolean;
}

export interface EditInput {
  target: ContentTarget;
  edits: TextEdit[];
  dryRun: boolean;
  ifMatch?: number;
  /** With an older ifMatch: edit that version, then merge three-way with the current one. */
  merge?: boolean;
  changeSummary?: string | null;
  /** Inserted after line `line` (0 = at the top) once the edits are applied, as the memory tool's insert does. */
  insert?: { line: number; text: string };
}

export interface EditResult {
  path: string;
  baseVersion: number;
  replacements: number;
  diff: string;
  applied: boolean;
  artifact: MergedRow | null;
}

/**
 * Bounds of an edit (docs/decisions.md, "Bounded work on every door"): the result is sized before it
 * is built and refused past the upload limit; the diff (Myers) runs on the event loop, so it gives up
 * past DIFF_TIMEOUT_MS or DIFF_MAX_EDIT_LENGTH changed lines, is skipped for texts past
 * DIFF_MAX_INPUT_CHARS, and is cut once at DIFF_MAX_CHARS. Texts of at most DIFF_UNTIMED_LINES lines in all get no
 * timeout: Myers does at most about lines × edit length steps, a few milliseconds there, and a wall-clock bound
 * could omit their diff only because a busy machine paused the process.
 */
const DIFF_TIMEOUT_MS = 15;
const DIFF_MAX_EDIT_LENGTH = 1000;
const DIFF_UNTIMED_LINES = 100;
const DIFF_MAX_INPUT_CHARS = 2 * 1024 * 1024;
export const DIFF_MAX_CHARS = 200_000;

function lineCount(text: string, stopAt: number): number {
  let n = 1;
  for (let at = text.indexOf('\n'); at >= 0 && n <= stopAt; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

function applyEdits(text: string, edits: TextEdit[], maxChars: number): { text: string; replacements: number } {
  let out = text;
  let replacements = 0;
  edits.forEach((e, i) => {
    if (e.oldText === '') throw new AppError('INVALID_ARGUMENT', `edits[${i}].old_text is empty`);
    const first = out.indexOf(e.oldText);
    if (first < 0)
      throw new AppError('EDIT_NO_MATCH', `edits[${i}].old_text does not occur in the text (after the earlier edits)`, {
        edit_index: i,
      });
    const count = e.replaceAll ? occurrences(out, e.oldText) : 1;
    if (!e.replaceAll && out.indexOf(e.oldText, first + 1) >= 0) {
      throw new AppError(
        'EDIT_AMBIGUOUS',
        `edits[${i}].old_text occurs more than once; include more surrounding text or set replace_all`,
        { edit_index: i },
      );
    }
    const size = out.length + count * (e.newText.length - e.oldText.length);
    if (size > maxChars) {
      throw new AppError(
        'ARTIFACT_TOO_LARGE',
        `edits[${i}] would make the text ${size} characters, over the ${maxChars}-byte upload limit; nothing was changed`,
        { edit_index: i },
      );
    }
    out = e.replaceAll
      ? out.split(e.oldText).join(e.newText)
      : out.slice(0, first) + e.newText + out.slice(first + e.oldText.length);
    replacements += count;
  });
  return { text: out, replacements };
}

/**
 * Inserts text after line `line` (0 = before the first), as the memory tool's insert: the text's trailing newlines
 * dropped, the result ending with a newline; a line past the end is INVALID_ARGUMENT naming the range.
 */
export function insertAtLine(text: string, insert: { line: number; text: string }, maxChars: number): string {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (insert.line < 0 || insert.line > lines.length)
    throw new AppError('INVALID_ARGUMENT', `insert_line ${insert.line} is outside [0, ${lines.length}]`);
  if (text.length + insert.text.length + 1 > maxChars)
    throw new AppError('ARTIFACT_TOO_LARGE', `the insert would pass the ${maxChars}-byte upload limit`);
  lines.splice(insert.line, 0, insert.text.replace(/\n+$/, ''));
  return `${lines.join('\n')}\n`;
}

/** The unified diff, within the bounds above; a note in its place when they stop it. */
export function boundedDiff(
  path: string,
  version: number,
  before: string,
  after: string,
  label: string,
  fromLabel = `v${version}`,
): string {
  if (before.length + after.length > DIFF_MAX_INPUT_CHARS) {
    return `(diff omitted: ${before.length} → ${after.length} characters is too large to diff)\n`;
  }
  const small = lineCount(before, DIFF_UNTIMED_LINES) + lineCount(after, DIFF_UNTIMED_LINES) <= DIFF_UNTIMED_LINES;
  const diff = createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, fromLabel, label, {
    timeout: small ? undefined : DIFF_TIMEOUT_MS,
    maxEditLength: DIFF_MAX_EDIT_LENGTH,
  });
  if (diff === undefined)
    return `(diff omitted: the change touches too many lines to diff within ${DIFF_TIMEOUT_MS} ms)\n`;
  return diff.length > DIFF_MAX_CHARS
    ? `${diff.slice(0, DIFF_MAX_CHARS)}\n(diff cut at ${DIFF_MAX_CHARS} characters)\n`
    : diff;
}

export async function editArtifact(rc: RequestContext, input: EditInput): Promise<EditResult> {
  const current = await readArtifactText(rc, input.target);
  checkNotWiki(current.blob.path);
  // merge: the edits apply to version if_match, and that result merges with the current version (merge.md).
  const behind = input.merge && input.ifMatch !== undefined && input.ifMatch < current.blob.versionNumber;
  if (input.ifMatch !== undefined && input.ifMatch !== current.blob.versionNumber && !behind)
    throw preconditionFailed(current.blob.versionNumber);
  const { blob, text } = behind
    ? await readArtifactText(rc, { artId: current.blob.artId, versionNumber: input.ifMatch! })
    : current;
  const max = rc.app.config.limits.maxUploadBytes;
  const replaced = applyEdits(text, input.edits, max);
  const edited = input.insert ? { ...replaced, text: insertAtLine(replaced.text, input.insert, max) } : replaced;
  const diff = boundedDiff(
    blob.path,
    blob.versionNumber,
    text,
    edited.text,
    input.dryRun ? 'edited (dry run)' : 'edited',
  );
  const base = { path: blob.path, baseVersion: blob.versionNumber, replacements: edited.replacements, diff };
  if (input.dryRun || edited.text === text) return { ...base, applied: false, artifact: null };
  const bytes = Buffer.from(edited.text, 'utf8');
  // By id, so an edit through a grant writes the granted artifact on its own drive (under the grant's
  // write capability), never a same-path file of the caller's drive.
  const artifact = await uploadArtifactById(
    rc,
    blob.artId,
    {
      contentType: blob.contentType,
      changeSummary: checkChangeSummary(input.changeSummary ?? null),
      ifMatch: blob.versionNumber,
      merge: behind || undefined,
    },
    { stream: Readable.from([bytes]), declaredBytes: bytes.length },
  );
  return { ...base, applied: true, artifact };
}
