import { parseDocument } from 'htmlparser2';
import { isTag, isText, type ChildNode, type Element } from 'domhandler';

/** A small DOM over htmlparser2's XML mode: what the Office, OpenDocument and EPUB readers walk. */
export function parseXml(xml: string): Element[] {
  return parseDocument(xml, { xmlMode: true }).children.filter(isElement);
}

export function isElement(n: ChildNode): n is Element {
  return isTag(n);
}

export function children(el: Element): Element[] {
  return el.children.filter(isElement);
}

/** Every descendant element named `name` (a qualified name, e.g. `w:p`), in document order. */
export function descendants(nodes: Element[], name: string): Element[] {
  const out: Element[] = [];
  const walk = (list: Element[]) => {
    for (const el of list) {
      if (el.name === name) out.push(el);
      else walk(children(el));
    }
  };
  walk(nodes);
  return out;
}

export function first(nodes: Element[], name: string): Element | undefined {
  return descendants(nodes, name)[0];
}

/** Text of the element's text nodes (entities decoded by the parser). */
export function textOf(node: ChildNode): string {
  if (isText(node)) return node.data;
  return isElement(node) ? node.children.map(textOf).join('') : '';
}

/** Relationship id → target of an OOXML `.rels` part. */
export function relationships(xml: string): Map<string, { target: string; type: string }> {
  const map = new Map<string, { target: string; type: string }>();
  for (const r of descendants(parseXml(xml), 'Relationship'))
    map.set(r.attribs.Id ?? '', { target: r.attribs.Target ?? '', type: r.attribs.Type ?? '' });
  return map;
}
