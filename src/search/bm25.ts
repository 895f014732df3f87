import type { SqlPool } from '../db/pool.js';
import { parseQuery, type Atom } from './query-syntax.js';

/**
 * BM25 for the PostgreSQL engine's lexical legs (docs/decisions/search.md, "BM25"). The GIN index finds candidates;
 * each candidate's tsvector gives the term frequencies; a drive's passage count, average length and the document
 * frequency of the query's terms weigh them. `ts_rank` had no inverse document frequency (a common word weighed as
 * much as a rare one), and find asked every word to match (websearch_to_tsquery ANDs them): on real text the leg
 * found fewer than half of the right pages.
 */
export const TS_CONFIG = 'search_english';
export const K1 = 1.2;
export const B = 0.75;

/**
 * At most this many rows are scored by one query. The candidates are the matches of the query's rarest terms (their
 * document frequencies summed stay under this), so a common word never has its postings read: a passage without any
 * of the rare terms scores at most the common terms' small weights (the "max-score" cut of inverted-index engines).
 * When even the rarest term matches more, its most recent matches are scored.
 */
export const CANDIDATES = 1000;
/** Rows of a drive read to estimate the document frequency of its common terms. */
export const DF_SAMPLE = 2000;
/** A drive's statistics are refreshed in the background once older than this. */
const STATS_TTL_MS = 30_000;

export type LexicalTable = 'search_passages' | 'search_documents';

interface DriveStats {
  rows: number;
  avgLen: number;
  /** Sampled rows: all of them when rows <= DF_SAMPLE (then `df` is exact). */
  sampled: number;
  df: Map<string, number>;
  at: number;
}

/** A tsquery literal of one lexeme (quotes doubled, backslashes escaped). */
export function lexemeQuery(lexeme: string): string {
  return `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** Lucene's BM25 idf: never negative, however common the term. */
export function idf(rows: number, df: number): number {
  const n = Math.max(rows, df);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** What one lexical query asks, decided before the scoring statement. */
export interface LexicalPlan {
  /** The positive terms (lexemes, stemmed and accent-folded) and their weights. */
  terms: string[];
  idfs: number[];
  avgLen: number;
  /** A tsquery (text form) that finds the candidates: an OR of the rarest terms. */
  candidates: string;
  /** Quoted phrases and `a OR b` groups: each group must match (its alternatives as texts). */
  required: string[][];
  /** `-word` and `-"a phrase"`: no hit may match them. */
  excluded: string[];
  /** An OR of every term: what the snippet marks. */
  highlight: string;
}

const atomText = (a: Atom) => a.phrase.join(' ');

/**
 * The query's meaning for an any-word leg: bare words are optional and scored (BM25 rewards a passage for each, rare
 * ones most), word-joined ones (`sd-128`, `encode/decode`) too; a quoted phrase must match; `a OR b` must match one of
 * them; `-x` must not match.
 */
function operatorsOf(q: string): { words: string[]; required: string[][]; excluded: string[] } {
  const parsed = parseQuery(q);
  const words: string[] = [];
  const required: string[][] = [];
  for (const group of parsed.required) {
    for (const atom of group) words.push(...atom.phrase);
    if (group.length > 1 || (group[0]!.quoted && group[0]!.phrase.length > 1)) required.push(group.map(atomText));
  }
  return { words, required, excluded: parsed.excluded.map(atomText) };
}

export class LexicalStats {
  private readonly stats = new Map<string, DriveStats>();
  private readonly loading = new Map<string, Promise<DriveStats>>();

  constructor(private readonly pool: SqlPool) {}

  /**
   * The plan of `q` on `table` for the drive: its terms with their idf, the candidate query and the operators.
   * `null` when no word of the query can match (only stopwords, or only exclusions).
   */
  async plan(table: LexicalTable, driveId: string, q: string): Promise<LexicalPlan | null> {
    const { words, required, excluded } = operatorsOf(q);
    if (!words.length) return null;
    const [terms, stats] = await Promise.all([this.lexemes(words), this.driveStats(table, driveId)]);
    if (!terms.length) return null;
    const df = await this.documentFrequencies(table, driveId, terms, stats);
    const rows = Math.max(stats.rows, ...df);
    const byRarity = terms.map((t, i) => ({ t, df: df[i]! })).sort((a, b) => a.df - b.df);
    const chosen: string[] = [];
    let covered = 0;
    for (const { t, df: n } of byRarity) {
      if (chosen.length && covered + n > CANDIDATES) break;
      chosen.push(t);
      covered += n;
    }
    return {
      terms,
      idfs: df.map((n) => idf(rows, n)),
      avgLen: stats.avgLen || 1,
      candidates: chosen.map(lexemeQuery).join(' | '),
      required,
      excluded,
      highlight: terms.map(lexemeQuery).join(' | '),
    };
  }

  /** The query words as the index holds them (stemmed, accents folded, stopwords gone), each once. */
  private async lexemes(words: string[]): Promise<string[]> {
    const { rows } = await this.pool.query<{ lexeme: string }>(
      `select distinct l as lexeme from unnest(tsvector_to_array(to_tsvector('${TS_CONFIG}', $1))) as l`,
      [words.join(' ')],
    );
    return rows.map((r) => r.lexeme).sort();
  }

  /**
   * Each term's document frequency: exact from the sample when it covered the whole drive, estimated from it for a
   * term common enough that counting its matches would cost more than it tells, else counted by the GIN index (at
   * most CANDIDATES + 1 matches read: beyond that, the term is common and the sample's estimate is used).
   */
  private async documentFrequencies(
    table: LexicalTable,
    driveId: string,
    terms: string[],
    stats: DriveStats,
  ): Promise<number[]> {
    const scale = stats.rows / Math.max(1, stats.sampled);
    const known = terms.map((t) => {
      const c = stats.df.get(t);
      if (stats.sampled >= stats.rows && c !== undefined) return c;
      return c !== undefined && c * scale > CANDIDATES ? Math.round(c * scale) : undefined;
    });
    const unknown = terms.filter((_, i) => known[i] === undefined);
    if (!unknown.length) return known as number[];
    const { rows } = await this.pool.query<{ lexeme: string; df: number }>(
      `select t.lexeme, (select count(*) from (select 1 from ${table} x
                          where x.drive_id = $1 and x.tsv @@ t.q limit ${CANDIDATES + 1}) m)::int as df
         from unnest($2::text[], $3::text[]::tsquery[]) as t(lexeme, q)`,
      [driveId, unknown, unknown.map(lexemeQuery)],
    );
    const counted = new Map(rows.map((r) => [r.lexeme, r.df]));
    return terms.map((t, i) => {
      const exact = counted.get(t);
      if (known[i] !== undefined) return known[i]!;
      // Past the cap the count is a floor: the sample (or the cap) says more.
      if (exact !== undefined && exact > CANDIDATES) return Math.max(exact, Math.round((stats.df.get(t) ?? 0) * scale));
      return exact ?? 0;
    });
  }

  /** Cached per drive and table; refreshed in the background once stale, so only a drive's first query waits. */
  private async driveStats(table: LexicalTable, driveId: string): Promise<DriveStats> {
    const key = `${table}:${driveId}`;
    const cached = this.stats.get(key);
    if (cached && Date.now() - cached.at < STATS_TTL_MS) return cached;
    const pending = this.loading.get(key) ?? this.load(table, driveId, key);
    if (cached) {
      pending.catch(() => undefined);
      return cached;
    }
    return pending;
  }

  private load(table: LexicalTable, driveId: string, key: string): Promise<DriveStats> {
    const p = (async () => {
      const { rows } = await this.pool.query<{ rows: number; avg_len: number }>(
        `select count(*)::int as rows, coalesce(avg(lex_len), 0)::float8 as avg_len from ${table} where drive_id = $1`,
        [driveId],
      );
      const { rows: n, avg_len: avgLen } = rows[0]!;
      // Below the sample's size every count is kept (exact); above, only terms seen 3 times or more (the common ones
      // whose exact count would cost most); rarer ones are counted exactly when a query asks for them.
      const { rows: sample } = await this.pool.query<{ lexeme: string; n: number }>(
        `select l as lexeme, count(*)::int as n
           from (select tsv from ${table} where drive_id = $1 limit ${DF_SAMPLE}) s
           cross join unnest(tsvector_to_array(s.tsv)) as l
          group by l having count(*) >= $2`,
        [driveId, n <= DF_SAMPLE ? 1 : 3],
      );
      const stats: DriveStats = {
        rows: n,
        avgLen: Number(avgLen),
        sampled: Math.min(n, DF_SAMPLE),
        df: new Map(sample.map((r) => [r.lexeme, r.n])),
        at: Date.now(),
      };
      this.stats.set(key, stats);
      // Bounded: the drives queried lately.
      if (this.stats.size > 500) this.stats.delete(this.stats.keys().next().value!);
      return stats;
    })().finally(() => this.loading.delete(key));
    this.loading.set(key, p);
    return p;
  }
}

/**
 * The scoring statement's middle: the candidate rows `c` (carrying `tsv` and `lex_len`) joined to their frequencies of
 * the plan's terms (the tsvector cut to those terms: setweight marks them, ts_filter keeps them, so only a few
 * lexemes are unnested per row), summed into BM25. `keys` are the candidate columns the statement groups by.
 */
export function bm25Sql(param: (value: unknown) => string, plan: LexicalPlan, candidates: string, keys: string[]) {
  const terms = param(plan.terms);
  const group = keys.map((k) => `c.${k}`).join(', ');
  return `select ${group},
            sum(w.idf * u.tf * ${K1 + 1} / (u.tf + ${K1} * (${1 - B} + ${B} * c.lex_len / ${param(plan.avgLen)}::float8))) as score
       from (${candidates}) c
       cross join lateral (select x.lexeme, coalesce(array_length(x.positions, 1), 1) as tf
                             from unnest(ts_filter(setweight(c.tsv, 'A', ${terms}::text[]), '{a}')) as x) u
       join unnest(${terms}::text[], ${param(plan.idfs)}::float8[]) as w(lexeme, idf) on w.lexeme = u.lexeme
      group by ${group}, c.lex_len`;
}

/** The plan's operators as conditions on `alias.tsv`. */
export function operatorSql(param: (value: unknown) => string, plan: LexicalPlan, alias: string): string[] {
  const phrase = (text: string) => `phraseto_tsquery('${TS_CONFIG}', ${param(text)})`;
  return [
    ...plan.required.map((group) => `${alias}.tsv @@ (${group.map(phrase).join(' || ')})`),
    ...plan.excluded.map((text) => `not (${alias}.tsv @@ ${phrase(text)})`),
  ];
}
