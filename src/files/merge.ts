import { diffArrays } from 'diff';
import { AppError } from '../lib/errors.js';

/**
 * Three-way merge of text, line by line (docs/decisions/merge.md): `ours` (the write) and `theirs` (the current
 * version) each diffed against `base` (the version the writer started from, If-Match) with the same Myers diff the
 * edit diffs use (the `diff` package), then the two change lists walked together. Changes to disjoint base ranges
 * both apply; changes that overlap or touch (adjacent lines, or insertions at one point) conflict unless both sides
 * made the same change. Bounded like every diff (src/files/edit.ts): input size, lines, changed lines and time;
 * past a bound, 413 MERGE_TOO_LARGE (nothing is written).
 */

export const MERGE_MAX_INPUT_CHARS = 2 * 1024 * 1024;
export const MERGE_MAX_LINES = 50_000;
/** Changed lines per side the Myers diff explores before giving up; the timeout caps each side's diff. */
export const MERGE_MAX_EDIT_LENGTH = 2000;
export const MERGE_TIMEOUT_MS = 250;
/** How much of the conflicts a 409 carries: hunks, and lines per side of a hunk. */
export const MERGE_MAX_HUNKS = 50;
export const MERGE_MAX_HUNK_LINES = 200;

/** One side of a conflicting hunk: where it starts (1-based line in that text) and its lines (without line ends). */
export interface HunkSide {
  start: number;
  lines: string[];
  truncated?: true;
}

export interface MergeHunk {
  base: HunkSide;
  ours: HunkSide;
  theirs: HunkSide;
}

export type MergeOutcome = { clean: true; text: string } | { clean: false; conflicts: MergeHunk[] };

/** A change of one side: base lines [from, to) replaced by `lines`. */
interface Change {
  from: number;
  to: number;
  lines: string[];
}

/** Lines with their line ends kept, so joining them gives the text back byte for byte. */
export const splitLines = (text: string): string[] => (text === '' ? [] : text.split(/(?<=\n)/));

export const mergeTooLarge = (why: string) =>
  new AppError('MERGE_TOO_LARGE', `three-way merge refused: ${why}; nothing was written`, {
    max_input_chars: MERGE_MAX_INPUT_CHARS,
    max_lines: MERGE_MAX_LINES,
    max_changed_lines: MERGE_MAX_EDIT_LENGTH,
  });

function changesOf(base: string[], side: string[]): Change[] {
  const parts = diffArrays(base, side, { maxEditLength: MERGE_MAX_EDIT_LENGTH, timeout: MERGE_TIMEOUT_MS });
  if (!parts) throw mergeTooLarge(`a side changes more than ${MERGE_MAX_EDIT_LENGTH} lines or took too long to diff`);
  const changes: Change[] = [];
  let at = 0;
  let open: Change | undefined;
  for (const p of parts) {
    if (!p.added && !p.removed) {
      if (open) changes.push(open);
      open = undefined;
      at += p.count ?? p.value.length;
      continue;
    }
    open ??= { from: at, to: at, lines: [] };
    if (p.removed) {
      at += p.value.length;
      open.to = at;
    } else open.lines.push(...(p.value as string[]));
  }
  if (open) changes.push(open);
  return changes;
}

/** Base lines [from, to) with one side's changes inside that range applied. */
function applyWithin(base: string[], changes: Change[], from: number, to: number): string[] {
  const out: string[] = [];
  let at = from;
  for (const c of changes) {
    out.push(...base.slice(at, c.from), ...c.lines);
    at = c.to;
  }
  out.push(...base.slice(at, to));
  return out;
}

const side = (start: number, lines: string[]): HunkSide => {
  const shown = lines.slice(0, MERGE_MAX_HUNK_LINES).map((l) => l.replace(/\r?\n$/, ''));
  return lines.length > MERGE_MAX_HUNK_LINES ? { start, lines: shown, truncated: true } : { start, lines: shown };
};

export function mergeThreeWay(baseText: string, oursText: string, theirsText: string): MergeOutcome {
  if (baseText.length + oursText.length + theirsText.length > MERGE_MAX_INPUT_CHARS)
    throw mergeTooLarge(`the three texts are over ${MERGE_MAX_INPUT_CHARS} characters together`);
  const [base, ours, theirs] = [baseText, oursText, theirsText].map(splitLines);
  if (Math.max(base.length, ours.length, theirs.length) > MERGE_MAX_LINES)
    throw mergeTooLarge(`a text is over ${MERGE_MAX_LINES} lines`);
  const mine = changesOf(base, ours).map((c) => ({ ...c, ours: true }));
  const other = changesOf(base, theirs).map((c) => ({ ...c, ours: false }));
  const all = [...mine, ...other].sort((a, b) => a.from - b.from || a.to - b.to);
  const out: string[] = [];
  const conflicts: MergeHunk[] = [];
  // Line offsets of ours and theirs against base before the current group (for the hunks' line numbers).
  let at = 0;
  let oursShift = 0;
  let theirsShift = 0;
  for (let i = 0; i < all.length;) {
    // A group: changes whose base ranges overlap or touch, transitively.
    let j = i + 1;
    let to = all[i].to;
    while (j < all.length && all[j].from <= to) to = Math.max(to, all[j++].to);
    const from = all[i].from;
    const group = all.slice(i, j);
    const oursGroup = group.filter((c) => c.ours);
    const theirsGroup = group.filter((c) => !c.ours);
    const oursLines = applyWithin(base, oursGroup, from, to);
    const theirsLines = applyWithin(base, theirsGroup, from, to);
    out.push(...base.slice(at, from));
    const same = oursLines.length === theirsLines.length && oursLines.every((l, k) => l === theirsLines[k]);
    if (!oursGroup.length || !theirsGroup.length || same) {
      out.push(...(theirsGroup.length ? theirsLines : oursLines));
    } else {
      conflicts.push({
        base: side(from + 1, base.slice(from, to)),
        ours: side(from + 1 + oursShift, oursLines),
        theirs: side(from + 1 + theirsShift, theirsLines),
      });
    }
    oursShift += oursLines.length - (to - from);
    theirsShift += theirsLines.length - (to - from);
    at = to;
    i = j;
  }
  if (conflicts.length) return { clean: false, conflicts };
  out.push(...base.slice(at));
  return { clean: true, text: out.join('') };
}

export const mergeConflict = (base: number, theirs: number, path: string, conflicts: MergeHunk[]) =>
  new AppError(
    'MERGE_CONFLICT',
    `${path}: the write and version ${theirs} both changed the same lines of version ${base}; ` +
      `nothing was written (resolve the hunks and write again with If-Match: ${theirs})`,
    {
      base,
      theirs,
      current_version: theirs,
      conflicts: conflicts.slice(0, MERGE_MAX_HUNKS),
      ...(conflicts.length > MERGE_MAX_HUNKS ? { conflicts_truncated: true, conflict_count: conflicts.length } : {}),
    },
  );
