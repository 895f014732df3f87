/**
 * The arithmetic of the PostgreSQL engine's semantic leg (docs/decisions/search.md, "Semantic leg at scale").
 * A passage is stored with a signature, one bit per dimension (1 where the component is positive: the migration
 * search_signatures). Two estimates of the query's dot product with a passage, both built into PostgreSQL:
 * - coarse, for every matching passage: the query ternarised (+1, 0, −1 by a threshold on each component), so the
 *   estimate is one XOR, one AND and one bit count: `bit_count((signature # flip) & mask)`;
 * - fine, for the coarse stage's best: the query keeps its magnitudes, each component quantised to 4 bits and split
 *   into bit planes, so the estimate Σ qᵢ·bᵢ is four ANDs and bit counts.
 * Ranking by the fine estimate picks candidates; the exact dot product over the stored float4 bytes
 * (`embedding_bytes`) orders them.
 */
export const QUERY_PLANES = 4;

/**
 * How many passages the fine estimate hands to the exact rerank (at least twice the requested depth). A drive
 * or filtered set of at most this many passages is ranked exactly. Why 300: bench:find, docs/decisions/search.md.
 */
export const SEMANTIC_CANDIDATES = 300;

/** How many passages the coarse estimate hands to the fine one (at least four times the fine stage's). */
export const COARSE_CANDIDATES = 2000;

/** Components within this fraction of the query's root mean square of zero count for nothing in the coarse estimate. */
const TERNARY_THRESHOLD = 0.5;

export interface QueryTernary {
  /** Bit strings: `flip` is 1 where the component is below −τ, `mask` where its magnitude is above τ. */
  flip: string;
  mask: string;
}

/** The query ternarised for the coarse estimate. */
export function queryTernary(vector: number[]): QueryTernary {
  const tau = TERNARY_THRESHOLD * Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0) / (vector.length || 1));
  return {
    flip: vector.map((x) => (x < -tau ? '1' : '0')).join(''),
    mask: vector.map((x) => (Math.abs(x) > tau ? '1' : '0')).join(''),
  };
}

/**
 * The coarse estimate for `signature`: over the masked components, how many agree in sign with the query
 * (Σ over +1 components of bᵢ plus Σ over −1 components of 1 − bᵢ), which ranks like Σ sign₃(qᵢ)·(2bᵢ − 1).
 */
export function coarseEstimateSql(signature: string, flip: string, mask: string): string {
  return `bit_count((${signature} # ${flip}::bit varying) & ${mask}::bit varying)`;
}

export interface QueryPlanes {
  /** Bit strings ('0101…'), plane k holding bit k of each component's quantised level. */
  planes: string[];
  /** level·step + min approximates a component. */
  step: number;
  min: number;
}

/** Quantises the query vector to 2^QUERY_PLANES levels between its smallest and largest component. */
export function queryPlanes(vector: number[]): QueryPlanes {
  const min = Math.min(...vector);
  const max = Math.max(...vector);
  const levels = 2 ** QUERY_PLANES - 1;
  const step = max > min ? (max - min) / levels : 1;
  const quantised = vector.map((x) => Math.round((x - min) / step));
  const planes = Array.from({ length: QUERY_PLANES }, (_, k) => quantised.map((u) => (u >> k) & 1).join(''));
  return { planes, step, min };
}

/**
 * The SQL estimate of Σ qᵢ·bᵢ for `signature` (bᵢ the signature's bits), given the placeholders of the planes
 * (lowest bit first), the step and the minimum: step·Σₖ 2ᵏ·popcount(signature & planeₖ) + min·popcount(signature).
 * Ranking by it equals ranking by the sign-quantised dot product Σ qᵢ·(2bᵢ − 1) up to the query's constant.
 */
export function estimateSql(signature: string, planes: string[], step: string, min: string): string {
  const weighted = planes.map((p, k) => `${2 ** k} * bit_count(${signature} & ${p}::bit varying)`).join(' + ');
  return `((${weighted})::float8 * ${step}::float8 + ${min}::float8 * bit_count(${signature}))`;
}

export interface SignatureCandidate {
  art_id: string;
  ord: number;
  path: string;
  bytes: Buffer;
}

/**
 * The signature scan (search_passages `p`, documents `d`): the best `coarseKeep` matching passages by the coarse
 * estimate, of those the best `keep` by the fine one (over `f.signature`), with their path and float4 bytes.
 * Passages of other dimensions than `dims` sort last. Document filters apply before the coarse cut when
 * `documentsFirst` (a filter the caller chose: its documents first, then their passages' signatures), else to the
 * fine stage's best only, as they are joined back (the `_wiki/` exclusion, whose pages have no passages): the coarse
 * cut is then a top-N over the drive's covering index, with no document looked up per passage.
 */
export function signatureScanSql(o: {
  coarse: string;
  fine: string;
  dims: string;
  passageWhere: string[];
  documentWhere: string[];
  documentsFirst: boolean;
  coarseKeep: string;
  keep: string;
}): string {
  const and = (conditions: string[]) => conditions.map((c) => `and ${c}`).join(' ');
  const ofDocuments = `(select d.art_id from search_documents d where d.drive_id = $1 ${and(o.documentWhere)})`;
  return `select c.art_id, c.ord, d.path, p.embedding_bytes as bytes
    from (select f.art_id, f.ord
          from (select p.art_id, p.ord, p.signature from search_passages p
                where p.drive_id = $1 and p.signature is not null ${and(o.passageWhere)}
                  ${o.documentsFirst ? `and p.art_id in ${ofDocuments}` : ''}
                order by case when length(p.signature) = ${o.dims} then ${o.coarse} end desc nulls last
                limit ${o.coarseKeep}) f
          order by case when length(f.signature) = ${o.dims} then ${o.fine} end desc nulls last
          limit ${o.keep}) c
    join search_passages p on p.drive_id = $1 and p.art_id = c.art_id and p.ord = c.ord
    join search_documents d on d.drive_id = $1 and d.art_id = c.art_id ${o.documentsFirst ? '' : and(o.documentWhere)}`;
}

/** Dot product of the query with a vector stored as big-endian float4 bytes (search_vector_bytes). */
export function dotWithBytes(vector: number[], bytes: Buffer): number {
  let sum = 0;
  const n = Math.min(vector.length, bytes.length >> 2);
  for (let i = 0; i < n; i++) sum += vector[i]! * bytes.readFloatBE(i * 4);
  return sum;
}

export interface RankedCandidate {
  artId: string;
  ord: number;
  path: string;
  score: number;
}

/** The exact order the engine has always used: score desc, then path, then ord. */
function byScoreThenPath(a: RankedCandidate, b: RankedCandidate): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return a.ord - b.ord;
}

/**
 * The scan's candidates ranked by their exact dot product with the query, the best `limit` kept, and those tied with
 * the last one kept too: SQL then orders ties by path in its own collation, as before. A passage embedded with other
 * dimensions (the provider's settings changed) is never a match.
 */
export function rerankExactly(candidates: SignatureCandidate[], vector: number[], limit: number): RankedCandidate[] {
  const ranked = candidates
    .filter((c) => c.bytes.length === 4 * vector.length)
    .map((c) => ({ artId: c.art_id, ord: c.ord, path: c.path, score: dotWithBytes(vector, c.bytes) }))
    .sort(byScoreThenPath);
  if (!ranked.length) return [];
  const last = ranked[Math.min(limit, ranked.length) - 1]!.score;
  return ranked.filter((c, i) => i < limit || c.score === last);
}
