import { isText, type ChildNode, type Element } from 'domhandler';
import { readZip, utf8 } from './zip.js';
import { children, descendants, first, isElement, parseXml } from './xml.js';
import { gridUnit } from './ooxml.js';
import { joinBlocks, markdownTable, sectionsByHeading, type Unit } from './units.js';

/** OpenDocument (ODT, ODP, ODS) from content.xml. */

/** A paragraph's text with ODF's encoded whitespace (`text:s` runs of spaces, tabs, line breaks). */
function odfText(node: ChildNode): string {
  if (isText(node)) return node.data;
  if (!isElement(node)) return '';
  if (node.name === 'text:s') return ' '.repeat(Math.min(100, Number(node.attribs['text:c'] ?? 1)));
  if (node.name === 'text:tab') return '\t';
  if (node.name === 'text:line-break') return '\n';
  if (node.name === 'office:annotation' || node.name === 'text:note') return '';
  return node.children.map(odfText).join('');
}

function textBlocks(nodes: Element[]): string[] {
  const blocks: string[] = [];
  for (const el of nodes) {
    if (el.name === 'text:h') {
      const level = Math.min(6, Math.max(1, Number(el.attribs['text:outline-level'] ?? 1)));
      blocks.push(`${'#'.repeat(level)} ${odfText(el).trim()}`);
    } else if (el.name === 'text:p') blocks.push(odfText(el));
    else if (el.name === 'text:list-item') blocks.push(...textBlocks(children(el)).map((b) => `- ${b.trim()}`));
    else if (el.name === 'table:table') {
      const rows = descendants(children(el), 'table:table-row').map((r) =>
        descendants(children(r), 'table:table-cell').map((c) => odfText(c).trim()),
      );
      blocks.push(markdownTable(rows));
    } else blocks.push(...textBlocks(children(el)));
  }
  return blocks;
}

function content(bytes: Uint8Array): Element[] {
  return parseXml(utf8(readZip(bytes, (n) => n === 'content.xml').get('content.xml')));
}

export function odtUnits(bytes: Uint8Array): Unit[] {
  const body = first(content(bytes), 'office:text');
  return body ? sectionsByHeading(joinBlocks(textBlocks(children(body)))) : [];
}

export function odpUnits(bytes: Uint8Array): Unit[] {
  return descendants(content(bytes), 'draw:page').map((page, i) => {
    const notes = first([page], 'presentation:notes');
    const slide = joinBlocks(textBlocks(children(page).filter((c) => c !== notes)));
    const notesText = notes ? joinBlocks(textBlocks(children(notes))) : '';
    return { anchor: { slide: i + 1 }, text: notesText ? `${slide}\n\nNotes:\n${notesText}` : slide };
  });
}

/** Rows and columns may repeat (`number-*-repeated`, often to the sheet's edge): repeats of empty cells are skipped. */
export function odsUnits(bytes: Uint8Array): Unit[] {
  const units: Unit[] = [];
  for (const table of descendants(content(bytes), 'table:table')) {
    const cells: { row: number; col: number; text: string }[] = [];
    let row = 0;
    for (const tr of descendants(children(table), 'table:table-row')) {
      const rowRepeat = Math.max(1, Number(tr.attribs['table:number-rows-repeated'] ?? 1));
      let col = 0;
      for (const tc of children(tr)) {
        const repeat = Math.max(1, Number(tc.attribs['table:number-columns-repeated'] ?? 1));
        const text = descendants([tc], 'text:p').map(odfText).join('\n').trim();
        if (text) for (let k = 0; k < Math.min(repeat, 100); k++) cells.push({ row, col: col + k, text });
        col += repeat;
      }
      row += cells.some((c) => c.row === row) ? Math.min(rowRepeat, 100) : rowRepeat;
    }
    const unit = gridUnit(table.attribs['table:name'] ?? '', cells);
    if (unit) units.push(unit);
  }
  return units;
}
