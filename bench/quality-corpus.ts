import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

/**
 * The corpus of bench:quality: installed manual pages (real text none of us wrote), turned from roff into plain text
 * by the small converter below (no groff: its output depends on the terminal width, the locale and its version; this
 * one is the same on every machine for the same page). A page's query is its one-line NAME description (the text after
 * `name \- `, or mdoc's `.Nd`), the page its one right answer; the page's text leaves its NAME section out (unless
 * `keepName`), so the query must be answered from the rest of the page.
 *
 * The sample is deterministic: every page of the folder ordered by the sha256 of its file name, then taken in that
 * order, skipping a page that is an alias (`.so`, a symbolic link or the same bytes as one taken), has no NAME
 * description, has less than `minChars` of text or more than `maxChars`, or whose description (lowercased, spaces
 * folded) is already one of the sample's (its one right answer would be ambiguous).
 */
export interface ManPage {
  /** The page's file name without `.gz`, e.g. `ls.1`. */
  name: string;
  /** The description of its NAME line: the query. */
  description: string;
  /** The page as plain text. */
  text: string;
}

export interface CorpusOptions {
  dir: string;
  docs: number;
  minChars: number;
  maxChars: number;
  /**
   * Keep the NAME section in the text. Off by default: the query is that section's description, so a page holding it
   * would be found by its own words, verbatim (a lookup, not retrieval).
   */
  keepName?: boolean;
  /** File names to leave out (bench:quality leaves out the generated Google Cloud CLI pages). */
  exclude?: RegExp;
}

export interface Corpus {
  pages: ManPage[];
  /** Pages looked at to fill the sample, and why the others were skipped. */
  seen: number;
  skipped: Record<'alias' | 'noName' | 'short' | 'long' | 'duplicateDescription' | 'unreadable', number>;
}

export function sampleManPages(opts: CorpusOptions): Corpus {
  const files = readdirSync(opts.dir)
    .filter((f) => f.endsWith('.gz') && !opts.exclude?.test(f))
    .map((f) => ({ f, h: createHash('sha256').update(f).digest('hex') }))
    .sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0))
    .map(({ f }) => f);
  const skipped: Corpus['skipped'] = {
    alias: 0,
    noName: 0,
    short: 0,
    long: 0,
    duplicateDescription: 0,
    unreadable: 0,
  };
  const pages: ManPage[] = [];
  const targets = new Set<string>();
  const bodies = new Set<string>();
  const descriptions = new Set<string>();
  let seen = 0;
  for (const f of files) {
    if (pages.length >= opts.docs) break;
    seen++;
    const full = path.join(opts.dir, f);
    let roff: string;
    try {
      const target = realpathSync(full);
      if (targets.has(target)) {
        skipped.alias++;
        continue;
      }
      targets.add(target);
      roff = gunzipSync(readFileSync(target)).toString('utf8');
    } catch {
      skipped.unreadable++;
      continue;
    }
    const digest = createHash('sha256').update(roff).digest('hex');
    if (/^\.so\s/m.test(roff.slice(0, 400)) && roff.trim().split('\n').length <= 3) {
      skipped.alias++;
      continue;
    }
    if (bodies.has(digest)) {
      skipped.alias++;
      continue;
    }
    bodies.add(digest);
    const { text, description } = roffToText(roff, { keepName: opts.keepName });
    if (!description) {
      skipped.noName++;
      continue;
    }
    if (text.length < opts.minChars) {
      skipped.short++;
      continue;
    }
    if (text.length > opts.maxChars) {
      skipped.long++;
      continue;
    }
    const key = description.toLowerCase().replace(/\s+/g, ' ');
    if (descriptions.has(key)) {
      skipped.duplicateDescription++;
      continue;
    }
    descriptions.add(key);
    pages.push({ name: f.replace(/\.gz$/, ''), description, text });
  }
  return { pages, seen, skipped };
}

/** Special characters `\(xx` / `\[xx]` worth keeping; any other is dropped. */
const SPECIALS: Record<string, string> = {
  em: '—',
  en: '–',
  hy: '-',
  mi: '-',
  bu: '•',
  aq: "'",
  dq: '"',
  lq: '"',
  rq: '"',
  oq: "'",
  cq: "'",
  co: '©',
  rg: '®',
  tm: '™',
  ga: '`',
  ti: '~',
  ha: '^',
  rs: '\\',
  ba: '|',
  or: '|',
  lh: '<=',
  rh: '=>',
  '->': '->',
  '<-': '<-',
  '>=': '>=',
  '<=': '<=',
  de: '°',
  mu: '×',
  pl: '+',
  eq: '=',
};

/** Predefined strings `\*(xx` / `\*[xx]`. */
const STRINGS: Record<string, string> = { lq: '"', rq: '"', R: '®', Tm: '™', aq: "'", dq: '"' };

/** Inline escapes of one line of text: fonts, sizes, motions, specials, strings. */
export function unescapeRoff(line: string): string {
  let s = line.replace(/\\".*$/, ''); // comment to the end of the line
  s = s.replace(/\\\((..)/g, (_, c: string) => SPECIALS[c] ?? '');
  s = s.replace(/\\\[([^\]]*)\]/g, (_, c: string) => SPECIALS[c] ?? '');
  s = s.replace(
    /\\\*(?:\((..)|\[([^\]]*)\]|(.))/g,
    (_, a?: string, b?: string, c?: string) => STRINGS[a ?? b ?? c ?? ''] ?? '',
  );
  s = s.replace(/\\f(?:\(..|\[[^\]]*\]|.)/g, ''); // fonts
  s = s.replace(/\\s(?:[+-]?\d{1,2}|\([+-]?\d\d|\[[^\]]*\])/g, ''); // sizes
  s = s.replace(/\\[nkgVYm](?:\(..|\[[^\]]*\]|.)/g, ''); // registers, marks, colours
  s = s.replace(/\\[hvwlLxbDNoXSHZRCAB]'[^']*'/g, ''); // motions, widths, lines, device controls
  s = s.replace(/\\[-]/g, '-');
  s = s.replace(/\\[e\\]/g, '\\');
  s = s.replace(/\\[ ~0]/g, ' ');
  s = s.replace(/\\[&|^%:cdurtapz,/{}]/g, '');
  s = s.replace(/\\\./g, '.');
  s = s.replace(/\\(.)/g, '$1');
  return s;
}

/** Requests and macros whose arguments are not text (set-up, layout, definitions). */
const DROP = new Set(
  (
    'TH Dd Dt Os de de1 am ds ds1 nr if ie el so ta ft ps ll in ti ne hy nh ad na ce mk rt tr cc c2 ec eo lf rm rn als ' +
    'ig Bl El Bd Ed Bk Ek Sm Pp PP LP P br sp nf fi RS RE PD UC DT IX TS TE T& Dx Ux At Bx Nx Fx Ox bp pl wh ch it ev fam ' +
    'ss cs cu ul fp lg vs pn po pc ls mc nm nn fc lc hc hw hla hlm hpf hym ss tc tl char so mso do nop EX EE ' +
    'Ds De Sp Vb Ve Ip Ft Fo Fc In Lb Rs Re Ss0 MT ME UR UE ll ns rs sy pso opena open write close'
  ).split(' '),
);

/** mdoc macros called within a line: their names are dropped, their arguments kept. */
const MDOC_CALLABLE = new Set(
  (
    'Ad Ao Ac Ap Aq Ar Bc Bo Bq Brc Bro Brq Cd Cm Dc Do Dq Dv Ec Em En Eo Er Es Ev Fa Fl Fn Ic Li Lk Ms Mt Nm No Ns ' +
    'Oc Oo Op Pa Pc Pf Po Pq Qc Ql Qo Qq Sc So Sq Sx Sy Tn Va Vt Xc Xo Xr Ta It Nd Sh Ss D1 Dl Bf Ef Ek Bk An %A %T %B %J %D %N %O %P %Q %R %V'
  ).split(' '),
);

/** Macros that may stand inside the NAME paragraph (fonts, mdoc's name and description). */
const NAME_INLINE = new Set('B I BR RB BI IB IR RI SM SB Nm Nd Fl Ar Xr Pa'.split(' '));

/** The words of a macro line's arguments (quotes removed; mdoc's callable macro names dropped). */
function macroArgs(rest: string, mdoc: boolean): string {
  const args: string[] = [];
  for (const m of rest.matchAll(/"((?:[^"]|"")*)"|(\S+)/g)) {
    const a = m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!;
    if (mdoc && m[2] !== undefined && MDOC_CALLABLE.has(a)) continue;
    args.push(a);
  }
  return args.join(' ');
}

/**
 * Plain text of a roff page (man(7) or mdoc(7)): requests and set-up macros dropped, the arguments of text macros (.SH,
 * .B, .BR, .IP, .Nm, .Fl …) kept as words, inline escapes removed or mapped; definitions (.de … ..) and ignored blocks
 * (.ig … ..) dropped, tables kept as their cells. Also the NAME description, the query.
 */
export function roffToText(roff: string, opts: { keepName?: boolean } = {}): { text: string; description: string } {
  const out: string[] = [];
  const mdoc = /^\.(Dd|Sh)\b/m.test(roff);
  let skipUntilDots = false;
  let tablePreamble = false;
  let section = '';
  const nameLines: string[] = [];
  // The NAME paragraph: its text lines and inline macros, until the next paragraph or section macro.
  let nameOpen = false;
  let nd = '';
  for (const raw of roff.replace(/\r/g, '').split('\n')) {
    if (skipUntilDots) {
      if (/^\.\s*\.\s*$/.test(raw)) skipUntilDots = false;
      continue;
    }
    let line = raw;
    if (tablePreamble) {
      if (/\.\s*$/.test(line)) tablePreamble = false;
      continue;
    }
    const control = /^[.']\s*([^\s\\]+|\\")?(.*)$/.exec(line);
    if (control) {
      const name = control[1] ?? '';
      const rest = control[2] ?? '';
      if (name === '\\"' || name === '' || name.startsWith('\\"')) continue;
      if (name === 'de' || name === 'de1' || name === 'am' || name === 'ig') {
        skipUntilDots = true;
        continue;
      }
      if (name === 'TS') {
        tablePreamble = true;
        continue;
      }
      if (nameOpen && nameLines.length && !NAME_INLINE.has(name)) nameOpen = false;
      if (name === 'SH' || name === 'Sh') {
        section = unescapeRoff(macroArgs(rest, false)).trim().toUpperCase();
        nameOpen = section === 'NAME';
        if (section !== 'NAME' || opts.keepName) out.push('', section);
        continue;
      }
      if (name === 'Nd') nd = unescapeRoff(macroArgs(rest, true)).trim();
      if (DROP.has(name)) continue;
      line = macroArgs(rest, mdoc);
      if (name === 'TP' || name === 'HP' || name === 'PD') continue;
      if (name === 'IP' || name === 'TQ') line = macroArgs(rest, false).split(' ')[0] ?? '';
      // `.BR ls (1)`: alternating fonts joined without spaces in roff.
      if (/^(BR|RB|BI|IB|IR|RI)$/.test(name))
        line = [...rest.matchAll(/"((?:[^"]|"")*)"|(\S+)/g)].map((m) => m[1] ?? m[2]).join('');
    }
    const text = unescapeRoff(line.replace(/\t/g, ' ')).replace(/\s+/g, ' ').trim();
    if (!text) continue;
    if (nameOpen) nameLines.push(line);
    if (section !== 'NAME' || opts.keepName) out.push(text);
  }
  return {
    text: out
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
    description: nd || nameDescription(nameLines),
  };
}

/** The description of a man(7) NAME section: the text after the first `\-` (or ` - `). */
function nameDescription(lines: string[]): string {
  const joined = lines.join(' ');
  // A spaced dash first: `gcloud compute ssl\-policies \- update …` has a dash inside the name.
  const m = /\s\\-\s|\s-\s|\s\\\(em\s|\s—\s/.exec(joined) ?? /\\-/.exec(joined);
  if (!m) return '';
  const after = joined.slice(m.index + m[0].length);
  return unescapeRoff(after).replace(/\s+/g, ' ').trim();
}
