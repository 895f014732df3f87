import type { SqlPool } from '../db/pool.js';
import type { FindFilters } from './engine.js';
import type { GraphNeighbours, SemanticGraphCache } from './semantic-graph-cache.js';
import {
  coarseEstimateSql,
  estimateSql,
  queryPlanes,
  queryTernary,
  rerankExactly,
  signatureScanSql,
  type RankedCandidate,
  type SignatureCandidate,
} from './semantic-signatures.js';
import { addParam, documentFilters, excludedPrefixFilter, modalityFilter, type Where } from './sql-filters.js';

/**
 * The PostgreSQL engine's semantic ranking (docs/decisions/search.md, "Semantic leg at scale"). Candidates come from
 * the signature scan: every matching passage by the coarse estimate (one XOR, AND and bit count) → the best `coarse`
 * by the fine estimate (four bit planes) → the best `candidates` (at least twice the limit). A drive with a graph
 * (semantic-graph-store.ts) and a query the caller did not filter takes its candidates from the graph instead, and
 * scans only the passages written since the graph's build. Either way the candidates are ranked by their exact dot
 * product.
 */
export interface SemanticScan {
  pool: Pick<SqlPool, 'query'>;
  /** Passages the fine estimate ranks. */
  coarse: number;
  /** Passages the exact dot product ranks. */
  candidates: number;
  graphs?: Pick<SemanticGraphCache, 'nearest'>;
}

/** The best `filters.limit` passages of the drive for `vector` (ties with the last one kept), ranked exactly. */
export async function rankSemantic(
  scan: SemanticScan,
  driveId: string,
  vector: number[],
  filters: FindFilters,
): Promise<RankedCandidate[]> {
  const keep = Math.max(scan.candidates, 2 * filters.limit);
  const w: Where = { sql: [], params: [driveId, vector.length] };
  const ternary = queryTernary(vector);
  const coarse = coarseEstimateSql('p.signature', addParam(w, ternary.flip), addParam(w, ternary.mask));
  const { planes, step, min } = queryPlanes(vector);
  const planeParams = planes.map((p) => addParam(w, p));
  const fine = estimateSql('f.signature', planeParams, addParam(w, step), addParam(w, min));
  documentFilters(w, filters);
  const documentsFirst = w.sql.length > 0;
  excludedPrefixFilter(w, filters);
  const documentWhere = w.sql.splice(0);
  modalityFilter(w, filters);
  // A filter of the caller's selects passages by their document or modality, which the graph knows nothing about.
  const callerFiltered = documentsFirst || w.sql.length > 0;
  const graph = callerFiltered ? undefined : await scan.graphs?.nearest(driveId, vector, keep);
  if (graph) w.sql.push(`p.written_xid >= ${addParam(w, graph.coveredXmin)}::xid8`);
  const scanned = signatureScanSql({
    coarse,
    fine,
    dims: '$2',
    passageWhere: w.sql,
    documentWhere,
    documentsFirst,
    coarseKeep: addParam(w, Math.max(scan.coarse, 4 * keep)),
    keep: addParam(w, keep),
  });
  const sql = graph ? `(${scanned}) union all (${graphCandidatesSql(w, graph, documentWhere)})` : scanned;
  const { rows } = await scan.pool.query<SignatureCandidate>(sql, w.params);
  return rerankExactly(graph ? distinct(rows) : rows, vector, filters.limit);
}

/** The graph's neighbours that still exist, with their path and float4 bytes (a deleted passage finds no row). */
function graphCandidatesSql(w: Where, graph: GraphNeighbours, documentWhere: string[]): string {
  return `select p.art_id, p.ord, d.path, p.embedding_bytes as bytes
    from search_passages p join search_documents d on d.drive_id = $1 and d.art_id = p.art_id
    where p.drive_id = $1 and p.seq = any(${addParam(w, graph.keys)}::bigint[]) and p.signature is not null
    ${documentWhere.map((c) => `and ${c}`).join(' ')}`;
}

/** A passage written since the graph's build can also be in it (its transaction was open during the build). */
function distinct(rows: SignatureCandidate[]): SignatureCandidate[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const key = `${r.art_id}#${r.ord}`;
    return !seen.has(key) && Boolean(seen.add(key));
  });
}
