import { Readable } from 'node:stream';
import { createTwoFilesPatch } from 'diff';
import { AppError } from '../errors.js';
import type { RequestContext } from '../request-context.js';
import type { ArtifactRow } from './artifact-records.js';
import { checkChangeSummary, checkNotWiki, preconditionFailed } from './artifact-rules.js';
import { uploadArtifact } from './artifacts.js';
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

export interface EditResult {
  path: string;
  baseVersion: number;
  replacements: number;
  diff: string;
  applied: boolean;
  artifact: ArtifactRow | null;
}

function applyEdits(text: string, edits: TextEdit[]): { text: string; replacements: number } {
  let out = text;
  let replacements = 0;
  edits.forEach((e, i) => {
    if (e.oldText === '') throw new AppError('INVALID_ARGUMENT', `edits[${i}].old_text is empty`);
    const first = out.indexOf(e.oldText);
    if (first < 0) throw new AppError('EDIT_NO_MATCH', `edits[${i}].old_text does not occur in the text (after the earlier edits)`, { edit_index: i });
    if (e.replaceAll) {
      const parts = out.split(e.oldText);
      replacements += parts.length - 1;
      out = parts.join(e.newText);
      return;
    }
    if (out.indexOf(e.oldText, first + 1) >= 0) {
      throw new AppError('EDIT_AMBIGUOUS', `edits[${i}].old_text occurs more than once; include more surrounding text or set replace_all`, { edit_index: i });
    }
    out = out.slice(0, first) + e.newText + out.slice(first + e.oldText.length);
    replacements++;
  });
  return { text: out, replacements };
}

export async function editArtifact(
  rc: RequestContext,
  input: { target: ContentTarget; edits: TextEdit[]; dryRun: boolean; ifMatch?: number; changeSummary?: string | null },
): Promise<EditResult> {
  const { blob, text } = await readArtifactText(rc, input.target);
  checkNotWiki(blob.path);
  if (input.ifMatch !== undefined && input.ifMatch !== blob.versionNumber) throw preconditionFailed(blob.versionNumber);
  const edited = applyEdits(text, input.edits);
  const diff = createTwoFilesPatch(`a/${blob.path}`, `b/${blob.path}`, text, edited.text, `v${blob.versionNumber}`, input.dryRun ? 'edited (dry run)' : 'edited');
  const base = { path: blob.path, baseVersion: blob.versionNumber, replacements: edited.replacements, diff };
  if (input.dryRun || edited.text === text) return { ...base, applied: false, artifact: null };
  const bytes = Buffer.from(edited.text, 'utf8');
  const artifact = await uploadArtifact(
    rc,
    { path: blob.path, contentType: blob.contentType, changeSummary: checkChangeSummary(input.changeSummary ?? null), ifMatch: blob.versionNumber },
    { stream: Readable.from([bytes]), declaredBytes: bytes.length },
  );
  return { ...base, applied: true, artifact };
}
