import type { Element } from 'domhandler';
import { readZip, resolvePart, utf8 } from './zip.js';
import { children, descendants, first, parseXml, relationships, textOf } from './xml.js';
import { joinBlocks, markdownTable, sectionsByHeading, type Unit } from './units.js';

/** Office Open XML (DOCX, PPTX, XLSX) read from its parts: WordprocessingML, PresentationML and SpreadsheetML. */

/** A WordprocessingML/DrawingML run's text: `t`, tabs and breaks, in order. */
function runText(el: Element, ns: 'w' | 'a'): string {
  let out = '';
  const walk = (e: Element) => {
    for (const c of children(e)) {
      if (c.name === `${ns}:t`) out += textOf(c);
      else if (c.name === `${ns}:tab`) out += '\t';
      else if (c.name === `${ns}:br` || c.name === `${ns}:cr`) out += '\n';
      else if (c.name !== `${ns}:pPr` && c.name !== `${ns}:rPr` && c.name !== 'w:delText') walk(c);
    }
  };
  walk(el);
  return out;
}

function wordParagraph(p: Element): string {
  const text = runText(p, 'w').trim();
  if (!text) return '';
  const style = first([p], 'w:pStyle')?.attribs['w:val'] ?? '';
  const level = /^heading\s*(\d)$/i.exec(style)?.[1] ?? (/^title$/i.test(style) ? '1' : undefined);
  if (level) return `${'#'.repeat(Number(level))} ${text}`;
  if (first([p], 'w:numPr') || /list/i.test(style)) return `- ${text}`;
  return text;
}

function wordBody(nodes: Element[]): string[] {
  const blocks: string[] = [];
  for (const el of nodes) {
    if (el.name === 'w:p') blocks.push(wordParagraph(el));
    else if (el.name === 'w:tbl') {
      const rows = descendants(children(el), 'w:tr').map((tr) =>
        descendants(children(tr), 'w:tc').map((tc) =>
          descendants(children(tc), 'w:p')
            .map((p) => runText(p, 'w'))
            .join(' '),
        ),
      );
      blocks.push(markdownTable(rows));
    } else blocks.push(...wordBody(children(el)));
  }
  return blocks;
}

export function docxUnits(bytes: Uint8Array): Unit[] {
  const zip = readZip(bytes, (n) => n === 'word/document.xml');
  const body = first(parseXml(utf8(zip.get('word/document.xml'))), 'w:body');
  return body ? sectionsByHeading(joinBlocks(wordBody(children(body)))) : [];
}

function drawingText(xml: string): string {
  return joinBlocks(
    descendants(parseXml(xml), 'a:p').map((p) => {
      const text = runText(p, 'a').trim();
      return text && first([p], 'a:buChar') ? `- ${text}` : text;
    }),
  );
}

/** One unit per slide, in presentation order, with the speaker notes after the slide's text. */
export function pptxUnits(bytes: Uint8Array): Unit[] {
  const zip = readZip(bytes, (n) => n.endsWith('.xml') || n.endsWith('.rels'));
  const rels = relationships(utf8(zip.get('ppt/_rels/presentation.xml.rels')));
  const ids = descendants(parseXml(utf8(zip.get('ppt/presentation.xml'))), 'p:sldId');
  return ids.map((sld, i) => {
    const part = resolvePart('ppt/presentation.xml', rels.get(sld.attribs['r:id'] ?? '')?.target ?? '');
    const slideRels = relationships(utf8(zip.get(part.replace(/([^/]+)$/, '_rels/$1.rels'))));
    const notesRel = [...slideRels.values()].find((r) => r.type.endsWith('/notesSlide'));
    const notes = notesRel ? drawingText(utf8(zip.get(resolvePart(part, notesRel.target)))) : '';
    // The notes slide repeats the slide number as a placeholder: keep only real notes.
    const text = drawingText(utf8(zip.get(part)));
    const notesText = notes.replace(/^\d+$/m, '').trim();
    return { anchor: { slide: i + 1 }, text: notesText ? `${text}\n\nNotes:\n${notesText}` : text };
  });
}

/** Spreadsheet column letters to a 0-based index (A → 0, AA → 26). */
export function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

export function columnLetters(index: number): string {
  let s = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** Cells as rows, bounded so a sheet that names cell XFD1048576 does not make a billion empty cells. */
export function gridUnit(sheet: string, cells: { row: number; col: number; text: string }[]): Unit | null {
  if (!cells.length) return null;
  const rows = Math.max(...cells.map((c) => c.row)) + 1;
  const cols = Math.max(...cells.map((c) => c.col)) + 1;
  const minRow = Math.min(...cells.map((c) => c.row));
  const minCol = Math.min(...cells.map((c) => c.col));
  const byRow = new Map<number, string[]>();
  for (const c of cells) {
    if (c.col - minCol > 1000) continue;
    const row = byRow.get(c.row) ?? [];
    row[c.col - minCol] = c.text;
    byRow.set(c.row, row);
  }
  const table = [...byRow.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => Array.from(r, (x) => x ?? ''));
  const range = `${columnLetters(minCol)}${minRow + 1}:${columnLetters(cols - 1)}${rows}`;
  return { anchor: { sheet, range }, text: markdownTable(table) };
}

/** One unit per sheet: its cells as a Markdown table (a formula shows its cached value). */
export function xlsxUnits(bytes: Uint8Array): Unit[] {
  const zip = readZip(bytes, (n) => n.endsWith('.xml') || n.endsWith('.rels'));
  const shared = descendants(parseXml(utf8(zip.get('xl/sharedStrings.xml'))), 'si').map((si) =>
    descendants(children(si), 't').map(textOf).join(''),
  );
  const rels = relationships(utf8(zip.get('xl/_rels/workbook.xml.rels')));
  const units: Unit[] = [];
  for (const sheet of descendants(parseXml(utf8(zip.get('xl/workbook.xml'))), 'sheet')) {
    const part = resolvePart('xl/workbook.xml', rels.get(sheet.attribs['r:id'] ?? '')?.target ?? '');
    const cells = descendants(parseXml(utf8(zip.get(part))), 'c').flatMap((c) => {
      const ref = /^([A-Z]+)(\d+)$/.exec(c.attribs.r ?? '');
      if (!ref) return [];
      const v = first([c], 'v');
      const type = c.attribs.t;
      let text = v ? textOf(v) : '';
      if (type === 's') text = shared[Number(text)] ?? '';
      else if (type === 'inlineStr') text = descendants([c], 't').map(textOf).join('');
      else if (type === 'b') text = text === '1' ? 'TRUE' : 'FALSE';
      return text ? [{ row: Number(ref[2]) - 1, col: columnIndex(ref[1]!), text }] : [];
    });
    const unit = gridUnit(sheet.attribs.name ?? '', cells);
    if (unit) units.push(unit);
  }
  return units;
}
