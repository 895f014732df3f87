import { sectionsByHeading, type Unit } from './units.js';

/**
 * RTF to text: control words for paragraphs, tabs and escaped characters become text, destinations that are not
 * body text (font and colour tables, pictures, `\*` extensions, headers) are skipped, `\uN` code points kept.
 */
const SKIP = new Set([
  'fonttbl',
  'colortbl',
  'stylesheet',
  'info',
  'pict',
  'header',
  'footer',
  'object',
  'listtable',
  'listoverridetable',
  'rsidtbl',
  'generator',
  'themedata',
  'datastore',
  'latentstyles',
  'xmlnstbl',
]);

export function rtfText(source: string): string {
  let out = '';
  const stack: { skip: boolean; uc: number }[] = [];
  let state = { skip: false, uc: 1 };
  let skipChars = 0;
  const token = /\\([a-z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-f]{2})|\\([^a-z])|([{}])|\r?\n|([^\\{}\r\n]+)/giy;
  for (let m = token.exec(source); m; m = token.exec(source)) {
    const [, word, arg, hex, sym, brace, plain] = m;
    if (brace === '{') {
      stack.push(state);
      state = { ...state };
    } else if (brace === '}') state = stack.pop() ?? state;
    else if (word) {
      if (SKIP.has(word)) state.skip = true;
      else if (word === 'uc') state.uc = Number(arg ?? 1);
      else if (state.skip) continue;
      else if (word === 'par' || word === 'line' || word === 'sect' || word === 'row') out += '\n';
      else if (word === 'tab' || word === 'cell') out += '\t';
      else if (word === 'u' && arg) {
        out += String.fromCharCode((Number(arg) + 65536) % 65536);
        skipChars = state.uc;
      }
    } else if (sym === '*') state.skip = true;
    else if (state.skip) continue;
    else if (hex) {
      if (skipChars > 0) skipChars--;
      else out += new TextDecoder('windows-1252').decode(Uint8Array.of(parseInt(hex, 16)));
    } else if (sym) out += sym === '~' ? '\u00a0' : sym === '\\' || sym === '{' || sym === '}' ? sym : '';
    else if (plain) {
      const drop = Math.min(skipChars, plain.length);
      skipChars -= drop;
      out += plain.slice(drop);
    }
  }
  return out
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function rtfUnits(bytes: Uint8Array): Unit[] {
  return sectionsByHeading(rtfText(new TextDecoder('latin1').decode(bytes)));
}
