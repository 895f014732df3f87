/** Offsets into a text cut into pieces (lines, segments), and the one binary search that maps an offset back. */

/** Character offsets where each line starts (a final newline opens no empty last line). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  if (starts.length > 1 && starts[starts.length - 1] === text.length) starts.pop();
  return starts;
}

/** Index (0-based) of the piece holding `offset`, given the pieces' sorted start offsets. */
export function pieceAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A text's lines `lineStart` (1-based) to `lineStart + lineCount - 1`, or to the end: characters [start, end). */
export interface LineSpan {
  start: number;
  end: number;
  /** Last line included (1-based), null for an empty span (a line past the end, an empty text). */
  lastLine: number | null;
}

export function lineSpan(starts: number[], total: number, lineStart: number, lineCount?: number): LineSpan {
  const start = starts[lineStart - 1] ?? total;
  const stopLine = lineCount !== undefined ? lineStart - 1 + lineCount : starts.length;
  const end = Math.max(start, stopLine < starts.length ? starts[stopLine] : total);
  return { start, end, lastLine: end > start ? pieceAt(starts, end - 1) + 1 : null };
}
