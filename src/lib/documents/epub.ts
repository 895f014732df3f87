import { readZip, resolvePart, utf8 } from './zip.js';
import { descendants, first, parseXml, textOf } from './xml.js';
import { htmlMarkdown } from './html.js';
import type { Unit } from './units.js';

/** One unit per chapter: the spine's documents in reading order (container.xml → the package's manifest and spine). */
export function epubUnits(bytes: Uint8Array): Unit[] {
  const zip = readZip(bytes, (n) => /\.(xml|opf|x?html?|ncx)$/i.test(n));
  const rootfile = first(parseXml(utf8(zip.get('META-INF/container.xml'))), 'rootfile')?.attribs['full-path'] ?? '';
  const opf = parseXml(utf8(zip.get(rootfile)));
  const manifest = new Map(
    descendants(opf, 'item')
      .concat(descendants(opf, 'opf:item'))
      .map((i) => [i.attribs.id ?? '', i.attribs.href ?? '']),
  );
  const spine = descendants(opf, 'itemref').concat(descendants(opf, 'opf:itemref'));
  const units: Unit[] = [];
  for (const ref of spine) {
    const href = manifest.get(ref.attribs.idref ?? '');
    if (!href) continue;
    const xhtml = utf8(zip.get(resolvePart(rootfile, decodeURIComponent(href))));
    const text = htmlMarkdown(xhtml).trim();
    if (!text) continue;
    const title = textOf(first(parseXml(xhtml), 'title') ?? ({ type: 'text', data: '' } as never)).trim();
    units.push({ anchor: { chapter: units.length + 1, ...(title ? { title } : {}) }, text });
  }
  return units;
}
