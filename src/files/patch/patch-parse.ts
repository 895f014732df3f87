import { AppError } from '../../lib/errors.js';

/**
 * The V4A patch format of OpenAI's apply_patch (docs/decisions/apply-patch.md), parsed as the reference (openai/codex
 * `apply-patch`) reads it: `*** Begin Patch`, then `*** Add File: p` (+lines), `*** Delete File: p`, `*** Update File:
 * p` (optional `*** Move to: q`, then chunks: `@@ [context]`, ` ` context / `-` old / `+` new lines, optional
 * `*** End of File`), and `*** End Patch`.
 */
export interface PatchChunk {
  /** The `@@ …` anchor: a line to find first; the chunk is searched after it. */
  anchor: string | null;
  oldLines: string[];
  newLines: string[];
  endOfFile: boolean;
  /** The chunk as written, for the answer when it does not apply. */
  text: string;
}

export type PatchOp =
  | { kind: 'add'; path: string; text: string }
  | { kind: 'delete'; path: string }
  | { kind: 'update'; path: string; moveTo: string | null; chunks: PatchChunk[] };

export const PATCH_MAX_CHARS = 4 * 1024 * 1024;
export const PATCH_MAX_FILES = 100;

const invalid = (line: number, message: string) =>
  new AppError('INVALID_PATCH', `patch line ${line}: ${message}`, { line });

export function parsePatch(patch: string): PatchOp[] {
  const lines = patch.replace(/\r\n/g, '\n').split('\n');
  while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  if (lines[0]?.trim() !== '*** Begin Patch') throw invalid(1, "the first line must be '*** Begin Patch'");
  if (lines[lines.length - 1]?.trim() !== '*** End Patch')
    throw invalid(lines.length, "the last line must be '*** End Patch'");
  const ops: PatchOp[] = [];
  let i = 1;
  const header = (prefix: string) => (lines[i].startsWith(prefix) ? lines[i].slice(prefix.length).trim() : null);
  while (i < lines.length - 1) {
    const add = header('*** Add File: ');
    const del = header('*** Delete File: ');
    const upd = header('*** Update File: ');
    i++;
    if (add !== null) {
      const body: string[] = [];
      while (i < lines.length - 1 && lines[i].startsWith('+')) body.push(lines[i++].slice(1));
      ops.push({ kind: 'add', path: add, text: body.length ? `${body.join('\n')}\n` : '' });
    } else if (del !== null) ops.push({ kind: 'delete', path: del });
    else if (upd !== null) {
      let moveTo: string | null = null;
      if (lines[i]?.startsWith('*** Move to: ')) moveTo = lines[i++].slice('*** Move to: '.length).trim();
      const chunks: PatchChunk[] = [];
      while (i < lines.length - 1 && !lines[i].startsWith('*** ')) i = readChunk(lines, i, chunks);
      if (lines[i] === '*** End of File') i++;
      if (!chunks.length && !moveTo) throw invalid(i, `update of ${upd} has no hunk`);
      ops.push({ kind: 'update', path: upd, moveTo, chunks });
    } else
      throw invalid(
        i,
        `expected a file header ('*** Add File:', '*** Update File:', '*** Delete File:'), got '${lines[i - 1]}'`,
      );
    if (ops.length > PATCH_MAX_FILES) throw invalid(i, `a patch changes at most ${PATCH_MAX_FILES} files`);
  }
  return ops;
}

/** One chunk from an `@@` line (optional for the first chunk) to the next `@@`, header or end. */
function readChunk(lines: string[], start: number, chunks: PatchChunk[]): number {
  let i = start;
  let anchor: string | null = null;
  if (lines[i].startsWith('@@')) anchor = lines[i++].slice(2).trim() || null;
  else if (chunks.length) throw invalid(i + 1, `expected '@@' to start the next hunk, got '${lines[i]}'`);
  const chunk: PatchChunk = { anchor, oldLines: [], newLines: [], endOfFile: false, text: '' };
  const first = i;
  for (; i < lines.length - 1 && !lines[i].startsWith('@@') && !lines[i].startsWith('*** '); i++) {
    const line = lines[i];
    const body = line.slice(1);
    if (line === '' || line.startsWith(' ')) (chunk.oldLines.push(body), chunk.newLines.push(body));
    else if (line.startsWith('-')) chunk.oldLines.push(body);
    else if (line.startsWith('+')) chunk.newLines.push(body);
    else throw invalid(i + 1, `a hunk line starts with ' ', '-' or '+', got '${line}'`);
  }
  if (lines[i] === '*** End of File') chunk.endOfFile = true;
  if (i === first && !anchor) throw invalid(i + 1, 'empty hunk');
  chunk.text = lines.slice(anchor === null ? first : first - 1, i).join('\n');
  chunks.push(chunk);
  return chunk.endOfFile ? i + 1 : i;
}
