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

/** The id a viewer gives a unit's section, and a find hit's link points at (`#slide-2`, `#sheet-Budget`). */
export function anchorFragment(anchor: Anchor): string {
  if ('page' in anchor) return `page-${anchor.page}`;
  if ('slide' in anchor) return `slide-${anchor.slide}`;
  if ('sheet' in anchor) return `sheet-${encodeURIComponent(anchor.sheet)}`;
  if ('chapter' in anchor) return `chapter-${anchor.chapter}`;
  const slug = anchor.heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '');
  return `heading-${slug}`;
}

/** How a unit is named on screen: `Slide 2`, `Sheet Budget (A1:B3)`, `Chapter 2: Title`, the heading path. */
export function anchorLabel(anchor: Anchor): string {
  if ('page' in anchor) return `Page ${anchor.page}`;
  if ('slide' in anchor) return `Slide ${anchor.slide}`;
  if ('sheet' in anchor) return `Sheet ${anchor.sheet} (${anchor.range})`;
  if ('chapter' in anchor) return `Chapter ${anchor.chapter}${anchor.title ? `: ${anchor.title}` : ''}`;
  return anchor.heading || 'Start';
}
