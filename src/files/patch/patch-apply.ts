import type { PatchChunk } from './patch-parse.js';

/**
 * Applying V4A chunks to a text as openai/codex `apply-patch` does: each chunk's `@@` anchor is found first, then its
 * old lines from there on, exactly, then ignoring trailing whitespace, then ignoring surrounding whitespace
 * (`seek_sequence`); an `*** End of File` chunk is searched from the end. The search is bounded (SEEK_MAX_STEPS).
 */
export const SEEK_MAX_STEPS = 5_000_000;

export interface ChunkFailure {
  hunk: string;
  message: string;
  /** The closest place the old lines nearly match: its 1-based line and text. */
  nearest: { line: number; text: string } | null;
}

const normalisers = [(s: string) => s, (s: string) => s.trimEnd(), (s: string) => s.trim()];

function seek(lines: string[], pattern: string[], from: number, endOfFile: boolean): number {
  if (!pattern.length) return from;
  if (pattern.length > lines.length) return -1;
  const last = lines.length - pattern.length;
  let steps = 0;
  for (const norm of normalisers) {
    const starts = endOfFile ? [last] : Array.from({ length: Math.max(0, last - from + 1) }, (_, k) => from + k);
    for (const s of starts) {
      let ok = true;
      for (let k = 0; k < pattern.length && ok; k++, steps++) ok = norm(lines[s + k]) === norm(pattern[k]);
      if (ok) return s;
      if (steps > SEEK_MAX_STEPS) return -1;
    }
  }
  return -1;
}

/** The line sharing the most old lines in place (the nearest match reported when a hunk does not apply). */
function nearest(lines: string[], pattern: string[]): { line: number; text: string } | null {
  if (!pattern.length || !lines.length) return null;
  let best = { at: -1, score: 0 };
  const budget = Math.max(1, Math.floor(SEEK_MAX_STEPS / pattern.length));
  for (let s = 0; s < Math.min(lines.length, budget); s++) {
    let score = 0;
    for (let k = 0; k < pattern.length && s + k < lines.length; k++)
      if (lines[s + k].trim() === pattern[k].trim()) score++;
    if (score > best.score) best = { at: s, score };
  }
  return best.at < 0 ? null : { line: best.at + 1, text: lines[best.at] };
}

/** The new text, or the first chunk that did not apply. */
export function applyChunks(text: string, chunks: PatchChunk[]): { text: string } | { failure: ChunkFailure } {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const replacements: [number, number, string[]][] = [];
  let cursor = 0;
  for (const chunk of chunks) {
    if (chunk.anchor !== null) {
      const at = seek(lines, [chunk.anchor], cursor, false);
      if (at < 0)
        return { failure: { hunk: chunk.text, message: `context '@@ ${chunk.anchor}' not found`, nearest: null } };
      cursor = at + 1;
    }
    if (!chunk.oldLines.length) {
      replacements.push([lines.length, 0, chunk.newLines]);
      continue;
    }
    let oldLines = chunk.oldLines;
    let newLines = chunk.newLines;
    let at = seek(lines, oldLines, cursor, chunk.endOfFile);
    // A hunk ending in an empty line (the file's last newline) is retried without it, as the reference does.
    if (at < 0 && oldLines[oldLines.length - 1] === '') {
      oldLines = oldLines.slice(0, -1);
      if (newLines[newLines.length - 1] === '') newLines = newLines.slice(0, -1);
      at = seek(lines, oldLines, cursor, chunk.endOfFile);
    }
    if (at < 0)
      return {
        failure: {
          hunk: chunk.text,
          message: "the hunk's context and removed lines were not found",
          nearest: nearest(lines, oldLines),
        },
      };
    replacements.push([at, oldLines.length, newLines]);
    cursor = at + oldLines.length;
  }
  for (const [at, count, added] of replacements.sort((a, b) => b[0] - a[0])) lines.splice(at, count, ...added);
  return { text: lines.length ? `${lines.join('\n')}\n` : '' };
}
