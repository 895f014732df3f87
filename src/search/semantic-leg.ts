import type { SqlPool } from '../db/pool.js';
import type { FindFilters } from './engine.js';
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
 * The PostgreSQL engine's semantic ranking (docs/decisions/search.md, "Semantic leg at scale"), three cuts in one
 * statement and one in the engine: every matching passage by the coarse estimate (one XOR, AND and bit count) →
 * the best `coarse` by the fine estimate (four bit planes) → the best `candidates` (at least twice the limit) by
 * their exact dot product.
 */
export interface SemanticScan {
  pool: Pick<SqlPool, 'query'>;
  /** Passages the fine estimate ranks. */
  coarse: number;
  /** Passages the exact dot product ranks. */
  candidates: number;
}

/** The best `filters.limit` passages of the drive for `vector` (ties with the last one kept), ranked exactly. */
export async function rankSemantic(
  scan: SemanticScan,
  driveId: string,
  vector: number[],
  filters: FindFilters,
): Promise<RankedCandidate[]> {
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
  const keep = Math.max(scan.candidates, 2 * filters.limit);
  const sql = signatureScanSql({
    coarse,
    fine,
    dims: '$2',
    passageWhere: w.sql,
    documentWhere,
    documentsFirst,
    coarseKeep: addParam(w, Math.max(scan.coarse, 4 * keep)),
    keep: addParam(w, keep),
  });
  const { rows } = await scan.pool.query<SignatureCandidate>(sql, w.params);
  return rerankExactly(rows, vector, filters.limit);
}
