/**
 * The spec's search syntax as a small AST, for engines that do not speak websearch_to_tsquery
 * (Typesense). Grammar, as PostgreSQL reads it: terms are words or "quoted phrases"; a leading
 * `-` negates a term; `OR` between two terms makes an alternative and binds tighter than the
 * implicit AND; parentheses are not syntax (they are dropped like other punctuation).
 */
/** `quoted`: written in double quotes (a bare `foo-bar` is a phrase to websearch_to_tsquery too, but not quoted). */
export type Atom = { phrase: string[]; quoted?: boolean };
export interface ParsedQuery {
  /** AND of groups; each group is an OR of atoms. */
  required: Atom[][];
  excluded: Atom[];
}

const TOKEN = /(-?)"([^"]*)"?|(\S+)/g;

function words(s: string): string[] {
  return s
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

export function parseQuery(q: string): ParsedQuery {
  const required: Atom[][] = [];
  const excluded: Atom[] = [];
  let joinNext = false;
  for (const m of q.matchAll(TOKEN)) {
    const [, neg, phrase, bare] = m;
    if (bare !== undefined && bare === 'OR') {
      joinNext = required.length > 0;
      continue;
    }
    const negated = neg === '-' || (bare !== undefined && bare.startsWith('-') && bare.length > 1);
    const text = phrase ?? (negated ? bare!.slice(1) : bare!);
    const atom: Atom = phrase !== undefined ? { phrase: words(text), quoted: true } : { phrase: words(text) };
    if (!atom.phrase.length) continue;
    if (negated) {
      excluded.push(atom);
      joinNext = false;
      continue;
    }
    if (joinNext) required[required.length - 1]!.push(atom);
    else required.push([atom]);
    joinNext = false;
  }
  return { required, excluded };
}

/** Disjunctive normal form: each branch is a list of atoms that must all match. Capped to stay cheap. */
export function branchesOf(parsed: ParsedQuery, max = 16): Atom[][] {
  let branches: Atom[][] = [[]];
  for (const group of parsed.required) {
    const next: Atom[][] = [];
    for (const b of branches) for (const atom of group) if (next.length < max) next.push([...b, atom]);
    branches = next;
  }
  return branches.filter((b) => b.length > 0);
}
