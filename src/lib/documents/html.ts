import { parseDocument } from 'htmlparser2';
import { isText, type ChildNode, type Element } from 'domhandler';
import { isElement } from './xml.js';
import { markdownTable, sectionsByHeading, type Unit } from './units.js';

/** The visible text of an HTML page as Markdown: headings, lists and tables kept; scripts, styles, head dropped. */
const HIDDEN = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'iframe', 'object', 'canvas']);
const BLOCK = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'nav',
  'aside',
  'blockquote',
  'pre',
  'ul',
  'ol',
  'dl',
  'dt',
  'dd',
  'figure',
  'figcaption',
  'form',
  'fieldset',
  'address',
  'body',
  'html',
  'tr',
  'hr',
]);

function inline(node: ChildNode): string {
  if (isText(node)) return node.data.replace(/\s+/g, ' ');
  if (!isElement(node) || HIDDEN.has(node.name) || node.attribs.hidden !== undefined) return '';
  if (node.name === 'br') return '\n';
  return node.children.map(inline).join('');
}

function blocks(nodes: ChildNode[], out: string[]): void {
  let line = '';
  const flush = () => {
    if (line.trim()) out.push(line.trim());
    line = '';
  };
  for (const node of nodes) {
    if (!isElement(node)) {
      line += inline(node);
      continue;
    }
    const el: Element = node;
    if (HIDDEN.has(el.name) || el.attribs.hidden !== undefined) continue;
    const h = /^h([1-6])$/.exec(el.name);
    if (h) {
      flush();
      out.push(`${'#'.repeat(Number(h[1]))} ${inline(el).trim()}`);
    } else if (el.name === 'li') {
      flush();
      out.push(`- ${inline(el).trim()}`);
    } else if (el.name === 'table') {
      flush();
      const rows: string[][] = [];
      const walk = (e: Element) => {
        for (const c of e.children.filter(isElement)) {
          if (c.name === 'tr')
            rows.push(
              c.children
                .filter(isElement)
                .filter((d) => d.name === 'td' || d.name === 'th')
                .map((d) => inline(d)),
            );
          else walk(c);
        }
      };
      walk(el);
      out.push(markdownTable(rows));
    } else if (BLOCK.has(el.name)) {
      flush();
      blocks(el.children, out);
    } else line += inline(el);
  }
  flush();
}

export function htmlMarkdown(html: string): string {
  const out: string[] = [];
  blocks(parseDocument(html).children, out);
  return out.join('\n\n');
}

export function htmlUnits(bytes: Uint8Array): Unit[] {
  return sectionsByHeading(htmlMarkdown(new TextDecoder().decode(bytes)));
}
