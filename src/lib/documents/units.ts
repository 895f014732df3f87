/**
 * Units of an extracted document: what an anchor names (a PDF page, a slide, a sheet, a chapter, a heading's section).
 * split.ts keeps each passage inside one unit and stores the unit's anchor on it.
 */
export type Anchor =
  | { page: number }
  | { slide: number }
  | { sheet: string; range: string }
  | { chapter: number; title?: string }
  | { heading: string };

export interface Unit {
  anchor: Anchor;
  text: string;
}

/** A Markdown table; the first row is the header. Pipes and line breaks inside cells are escaped. */
export function markdownTable(rows: string[][]): string {
  if (!rows.length) return '';
  const width = Math.max(...rows.map((r) => r.length));
  const cell = (s: string | undefined) =>
    (s ?? '')
      .replace(/\|/g, '\\|')
      .replace(/\s*\n\s*/g, ' ')
      .trim();
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => cell(r[i])).join(' | ')} |`;
  const [head, ...body] = rows;
  return [line(head!), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
}

/**
 * Sections of Markdown at its headings: each unit runs from a heading to the next one and is anchored by its heading
 * path (`Report > Results`); text before the first heading is anchored by the empty path.
 */
export function sectionsByHeading(markdown: string): Unit[] {
  const units: Unit[] = [];
  const path: string[] = [];
  let lines: string[] = [];
  let heading = '';
  const flush = () => {
    const text = lines.join('\n').trim();
    if (text) units.push({ anchor: { heading }, text });
    lines = [];
  };
  for (const line of markdown.split('\n')) {
    const m = /^(#{1,6}) (.*)$/.exec(line);
    if (m) {
      flush();
      path.length = m[1]!.length - 1;
      path[m[1]!.length - 1] = m[2]!.trim();
      heading = path.filter(Boolean).join(' > ');
    }
    lines.push(line);
  }
  flush();
  return units;
}

/** Blank-line-separated blocks without runs of empty lines. */
export function joinBlocks(blocks: string[]): string {
  return blocks
    .map((b) => b.trim())
    .filter(Boolean)
    .join('\n\n');
}
