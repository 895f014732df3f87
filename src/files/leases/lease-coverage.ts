import { AppError } from '../../lib/errors.js';

/**
 * What a lease covers and what a write touches (issue 56, docs/decisions/leases.md), as pure rules.
 *
 * A lease covers exact paths, a prefix (every path that starts with it, as a string) and/or a glob. Globs are matched
 * by a dynamic program over (pattern, path), never compiled to a backtracking regular expression, so a caller's
 * pattern costs at most |pattern| × |path| steps: `*` and `?` stay inside one segment, `**` crosses segments, `**\/`
 * also matches nothing. Two leases overlap when some path could be covered by both; between two globs (or a glob and a
 * prefix) that is decided by their literal prefixes and suffixes, which never misses an overlap but may see one where
 * the segments could not actually agree (a conservative refusal, never a lost exclusion).
 */
export interface LeaseCover {
  paths: string[];
  prefix: string | null;
  glob: string | null;
}

/** A write touches one path, or (a folder operation) everything under a prefix. */
export type WriteTarget = { path: string } | { under: string };

export const GLOB_MAX_CHARS = 256;
export const GLOB_MAX_WILDCARDS = 16;
export const LEASE_MAX_PATHS = 100;

type Token = { lit: string } | { one: true } | { star: true } | { globstar: true } | { globstarSlash: true };

function tokens(glob: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      if (glob[i + 2] === '/') {
        out.push({ globstarSlash: true });
        i += 2;
      } else {
        out.push({ globstar: true });
        i += 1;
      }
    } else if (c === '*') out.push({ star: true });
    else if (c === '?') out.push({ one: true });
    else out.push({ lit: c });
  }
  return out;
}

/** Refuses a glob this module would not bound: too long, too many wildcards, or syntax it does not implement. */
export function checkGlob(glob: string): string {
  const g = glob.replace(/^\/+/, '');
  if (!g || g.length > GLOB_MAX_CHARS)
    throw new AppError('INVALID_LEASE', `glob must be 1-${GLOB_MAX_CHARS} characters`);
  if (/[[\]{}\\!\u0000-\u001f]/.test(g))
    throw new AppError('INVALID_LEASE', 'glob supports *, ** and ? only (no [ ], { }, ! or backslashes)');
  if (tokens(g).filter((t) => !('lit' in t)).length > GLOB_MAX_WILDCARDS)
    throw new AppError('INVALID_LEASE', `glob has more than ${GLOB_MAX_WILDCARDS} wildcards`);
  return g;
}

/** Whether `path` matches `glob`, in O(|glob| × |path|) time and O(|path|) memory. */
export function globMatches(glob: string, path: string): boolean {
  const n = path.length;
  let row: boolean[] = Array.from({ length: n + 1 }, (_, j) => j === 0);
  for (const t of tokens(glob)) {
    const next: boolean[] = new Array<boolean>(n + 1).fill(false);
    if ('lit' in t || 'one' in t) {
      for (let j = 0; j < n; j++) if (row[j] && ('lit' in t ? path[j] === t.lit : path[j] !== '/')) next[j + 1] = true;
    } else if ('star' in t || 'globstar' in t) {
      const crosses = 'globstar' in t;
      for (let j = 0; j <= n; j++) next[j] = row[j]! || (j > 0 && next[j - 1]! && (crosses || path[j - 1] !== '/'));
    } else {
      // `**/`: nothing, or any run that ends with a slash.
      let seen = false;
      for (let j = 0; j <= n; j++) {
        next[j] = row[j]! || (seen && path[j - 1] === '/');
        if (row[j]) seen = true;
      }
    }
    row = next;
  }
  return row[n]!;
}

const literalEnds = (glob: string) => {
  const first = glob.search(/[*?]/);
  if (first < 0) return { prefix: glob, suffix: glob, exact: true };
  const last = Math.max(glob.lastIndexOf('*'), glob.lastIndexOf('?'));
  return { prefix: glob.slice(0, first), suffix: glob.slice(last + 1), exact: false };
};
const prefixesMeet = (a: string, b: string) => a.startsWith(b) || b.startsWith(a);
const suffixesMeet = (a: string, b: string) => a.endsWith(b) || b.endsWith(a);

/** One covered set: an exact path, every path under a prefix, or a glob. */
type Part = { path: string } | { under: string } | { glob: string };

const partsOf = (c: LeaseCover): Part[] => [
  ...c.paths.map((path) => ({ path })),
  ...(c.prefix !== null ? [{ under: c.prefix }] : []),
  ...(c.glob !== null ? [{ glob: c.glob }] : []),
];

function partsMeet(a: Part, b: Part): boolean {
  if ('path' in a) {
    if ('path' in b) return a.path === b.path;
    if ('under' in b) return a.path.startsWith(b.under);
    return globMatches(b.glob, a.path);
  }
  if ('path' in b) return partsMeet(b, a);
  if ('under' in a && 'under' in b) return prefixesMeet(a.under, b.under);
  const g = literalEnds('glob' in a ? a.glob : (b as { glob: string }).glob);
  const other = 'glob' in a ? b : a;
  if (g.exact) return partsMeet({ path: g.prefix }, other);
  if ('under' in other) return prefixesMeet(g.prefix, other.under);
  const h = literalEnds((other as { glob: string }).glob);
  if (h.exact) return globMatches('glob' in a ? a.glob : (b as { glob: string }).glob, h.prefix);
  return prefixesMeet(g.prefix, h.prefix) && suffixesMeet(g.suffix, h.suffix);
}

/** Whether some path could be covered by both. */
export const coversMeet = (a: LeaseCover, b: LeaseCover): boolean =>
  partsOf(a).some((p) => partsOf(b).some((q) => partsMeet(p, q)));

/** Whether the lease covers something the write touches. */
export const coverTouches = (c: LeaseCover, target: WriteTarget): boolean =>
  partsOf(c).some((p) => partsMeet(p, 'path' in target ? { path: target.path } : { under: target.under }));
