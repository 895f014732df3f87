import { SqlPool } from '../db/pool.js';
import {
  type Anchor,
  SNIPPET_MARK,
  type ArtifactPatch,
  type FindFilters,
  type Modality,
  type Passage,
  type PassageAwaitingVector,
  type PassageHit,
  type PassageVector,
  type PassageSet,
  type SearchDocument,
  type SearchEngine,
  type SearchFilters,
  type SearchHit,
  type SemanticQuery,
} from './engine.js';
import { bm25Sql, LexicalStats, operatorSql, TS_CONFIG, type LexicalPlan } from './bm25.js';
import type { SemanticGraphCache } from './semantic-graph-cache.js';
import { rankSemantic, type SemanticScan } from './semantic-leg.js';
import { COARSE_CANDIDATES, SEMANTIC_CANDIDATES } from './semantic-signatures.js';
import { addParam, documentFilters, passageFilters, type Where } from './sql-filters.js';
import { countAwaitingVectors, passagesAwaitingVectors, setPassageVectors } from './postgres-vectors.js';
import { INSERT_PASSAGES_SQL, passageColumns, passageParams, stripNul, wordCount } from './passage-rows.js';

/**
 * The default engine: PostgreSQL full-text search. Documents carry a generated, weighted tsvector (path and kept file
 * name A, preview B, metadata C, labels D); passages carry a tsvector of their own stretch and an embedding (float4
 * bytes, with its signature, for the semantic leg). Every tsvector and tsquery uses the `search_english`
 * configuration (english, accents folded). Both lexical queries rank with BM25 (bm25.ts): search's candidates match
 * websearch_to_tsquery, which is exactly the spec's syntax (stemmed words, "phrases", -negation, implicit AND, OR);
 * find's lexical leg lets any word match.
 */

/**
 * At most this many matches are scored by one lexical query (search, and find's lexical leg): the most recently
 * updated ones (updated_at desc, then art_id desc; for passages then ord). Find reaches them through its rarest terms
 * (bm25.ts, CANDIDATES), so the cut binds only when even the rarest term is common. Scoring reads each candidate's
 * tsvector (a TOAST fetch), so scoring every match of a common word grew with the drive; capped, a broad query costs
 * about the same at 10k and 100k artifacts. Why 1,000 and what it trades: docs/decisions/search.md ("Ranking cost").
 */
export const RANK_CANDIDATES = 1000;

/** Passages per insert statement (one statement's parameters stay a few MB). */
const INSERT_BATCH = 500;

const HEADLINE_OPTS = `StartSel=${SNIPPET_MARK.start}, StopSel=${SNIPPET_MARK.stop}, MaxWords=35, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "`;
const PASSAGE_HEADLINE_OPTS = `StartSel=${SNIPPET_MARK.start}, StopSel=${SNIPPET_MARK.stop}, MaxWords=35, MinWords=12, MaxFragments=1`;

interface DocRow {
  art_id: string;
  drive_id: string;
  path: string;
  content_type: string;
  file_type: string;
  labels: string[];
  updated_at: Date;
  version_number: number;
  snippet: string;
  score: number;
}

interface PassageRow extends DocRow {
  modality: Modality;
  ord: number;
  text: string;
  char_start: number | null;
  char_end: number | null;
  page_start: number | null;
  page_end: number | null;
  time_start_ms: number | null;
  time_end_ms: number | null;
  anchor: Anchor | null;
}

const DOC_COLUMNS =
  'd.art_id, d.drive_id, d.path, d.content_type, d.file_type, d.labels, d.updated_at, d.version_number';
const PASSAGE_COLUMNS = `${DOC_COLUMNS}, p.modality, p.ord, p.text, p.char_start, p.char_end, p.page_start, p.page_end, p.time_start_ms, p.time_end_ms, p.anchor`;

function toSearchHit(r: DocRow): SearchHit {
  return {
    artId: r.art_id,
    driveId: r.drive_id,
    path: r.path,
    contentType: r.content_type,
    fileType: r.file_type,
    labels: r.labels,
    updatedAt: r.updated_at,
    versionNumber: r.version_number,
    snippet: r.snippet,
    score: Number(r.score),
  };
}

function toPassageHit(r: PassageRow): PassageHit {
  const hit: PassageHit = { ...toSearchHit(r), modality: r.modality, ord: r.ord, text: r.text };
  const spans = {
    charStart: r.char_start,
    charEnd: r.char_end,
    pageStart: r.page_start,
    pageEnd: r.page_end,
    timeStartMs: r.time_start_ms,
    timeEndMs: r.time_end_ms,
  };
  for (const [k, v] of Object.entries(spans)) if (v !== null) (hit as unknown as Record<string, number>)[k] = v;
  if (r.anchor) hit.anchor = r.anchor;
  return hit;
}

export class PostgresSearchEngine implements SearchEngine {
  readonly name = 'postgres' as const;
  private readonly pool: SqlPool;
  private readonly rankCandidates: number;
  private readonly semantic: SemanticScan;
  private readonly graphs: Pick<SemanticGraphCache, 'nearest' | 'close'> | undefined;
  private readonly lexical: LexicalStats;

  /**
   * `db` is the process's shared pool (src/db/pool.ts); a URL gives the engine a pool of its own
   * (tests, benchmarks). `rankCandidates` overrides RANK_CANDIDATES (tests use a small cap), `semanticCandidates`
   * SEMANTIC_CANDIDATES and `coarseCandidates` COARSE_CANDIDATES (the semantic leg's two cuts, semantic-leg.ts);
   * `graphs` gives large drives their graph index (closed with the engine). Queries run without parallel workers
   * (onConnect in src/db/pool.ts).
   */
  constructor(
    db: SqlPool | string,
    opts: {
      poolMax?: number;
      rankCandidates?: number;
      semanticCandidates?: number;
      coarseCandidates?: number;
      graphs?: Pick<SemanticGraphCache, 'nearest' | 'close'>;
    } = {},
  ) {
    this.pool = typeof db === 'string' ? SqlPool.standalone(db, opts.poolMax ?? 5) : db;
    this.rankCandidates = opts.rankCandidates ?? RANK_CANDIDATES;
    this.semantic = {
      pool: this.pool,
      candidates: opts.semanticCandidates ?? SEMANTIC_CANDIDATES,
      coarse: opts.coarseCandidates ?? COARSE_CANDIDATES,
      graphs: opts.graphs,
    };
    this.graphs = opts.graphs;
    this.lexical = new LexicalStats(this.pool);
  }

  /** Tables come from the migration; nothing to create at run time. */
  async init(): Promise<void> {
    await this.pool.query('select 1 from search_documents limit 0');
  }

  async close(): Promise<void> {
    await this.graphs?.close();
    await this.pool.close();
  }

  async upsertDocument(doc: SearchDocument): Promise<void> {
    await this.upsertDocuments([doc]);
  }

  async upsertDocuments(docs: SearchDocument[]): Promise<void> {
    if (!docs.length) return;
    await this.pool.query(
      `insert into search_documents
         (drive_id, art_id, path, filename, content_type, file_type, labels, metadata, updated_at, version_number, preview,
          lex_len, extraction, extractor, indexed_at)
       select d.drive_id, d.art_id, d.path, d.filename, d.content_type, d.file_type, d.labels, d.metadata, d.updated_at,
              d.version_number, d.preview, d.lex_len, d.extraction, d.extractor, now()
         from jsonb_to_recordset($1::jsonb) as d(drive_id text, art_id text, path text, filename text, content_type text,
              file_type text, labels text[], metadata jsonb, updated_at timestamptz, version_number int, preview text,
              lex_len int, extraction text, extractor text)
       on conflict (drive_id, art_id) do update set
         path = excluded.path, filename = excluded.filename, content_type = excluded.content_type,
         file_type = excluded.file_type, labels = excluded.labels, metadata = excluded.metadata,
         updated_at = excluded.updated_at, version_number = excluded.version_number, preview = excluded.preview,
         lex_len = excluded.lex_len, extraction = excluded.extraction, extractor = excluded.extractor,
         indexed_at = now()
       where search_documents.version_number <= excluded.version_number`,
      [
        JSON.stringify(
          docs.map((d) => ({
            drive_id: d.driveId,
            art_id: d.artId,
            path: d.path,
            filename: d.filename ?? null,
            content_type: d.contentType,
            file_type: d.fileType,
            labels: d.labels,
            metadata: d.metadata,
            updated_at: d.updatedAt.toISOString(),
            version_number: d.versionNumber,
            preview: stripNul(d.preview),
            lex_len: wordCount(`${d.path} ${d.filename ?? ''} ${d.preview}`),
            extraction: d.extraction ?? null,
            extractor: d.extractor ?? null,
          })),
        ),
      ],
    );
  }

  async replacePassages(driveId: string, artId: string, versionNumber: number, passages: Passage[]): Promise<void> {
    await this.replacePassageSets([{ driveId, artId, versionNumber, passages }]);
  }

  async replacePassageSets(sets: PassageSet[]): Promise<void> {
    if (!sets.length) return;
    await this.pool.transaction(async (client) => {
      // A document may have been removed (artifact deleted) while the batch ran: then there is
      // nothing to attach passages to, and the delete's own request follows. The share lock keeps
      // a concurrent remove from slipping in between this check and the insert.
      const { rows: present } = await client.query<{ drive_id: string; art_id: string }>(
        `select d.drive_id, d.art_id from search_documents d
           join unnest($1::text[], $2::text[]) as t(drive_id, art_id) on d.drive_id = t.drive_id and d.art_id = t.art_id
         for share of d`,
        [sets.map((s) => s.driveId), sets.map((s) => s.artId)],
      );
      const kept = sets.filter((s) => present.some((p) => p.drive_id === s.driveId && p.art_id === s.artId));
      if (!kept.length) return;
      await client.query(
        `delete from search_passages p using unnest($1::text[], $2::text[]) as t(drive_id, art_id)
          where p.drive_id = t.drive_id and p.art_id = t.art_id`,
        [kept.map((s) => s.driveId), kept.map((s) => s.artId)],
      );
      const columns = passageColumns(kept);
      const rows = columns.ord.length;
      for (let i = 0; i < rows; i += INSERT_BATCH) {
        await client.query(INSERT_PASSAGES_SQL, passageParams(columns, i, i + INSERT_BATCH));
      }
    });
  }

  async patchArtifact(driveId: string, artId: string, patch: ArtifactPatch): Promise<void> {
    await this.pool.query(
      `update search_documents set
         path = coalesce($3, path), labels = coalesce($4, labels), metadata = coalesce($5, metadata),
         updated_at = coalesce($6, updated_at)
       where drive_id = $1 and art_id = $2`,
      [driveId, artId, patch.path ?? null, patch.labels ?? null, patch.metadata ?? null, patch.updatedAt ?? null],
    );
  }

  async removeArtifact(driveId: string, artId: string): Promise<void> {
    await this.pool.query('delete from search_documents where drive_id = $1 and art_id = $2', [driveId, artId]);
  }

  /**
   * The tsvector GIN indexes take new entries into a pending list and merge it into their tree only every ~4 MB
   * (`fastupdate`): cheap inserts, but every lexical query scans the whole list. After an ingest it was near full, and
   * find's lexical leg took p50 ~400 ms instead of ~30 until autovacuum came by (docs/decisions/search.md, "The
   * pending lists after an ingest"). Merged once indexing goes quiet, the work is the same and no query pays for it.
   */
  async mergePendingEntries(): Promise<void> {
    await this.pool.query(
      `select gin_clean_pending_list('search_passages_tsv_idx'::regclass),
              gin_clean_pending_list('search_documents_tsv_idx'::regclass)`,
    );
  }

  passagesAwaitingVectors(targets: { driveId: string; artId: string }[]): Promise<PassageAwaitingVector[]> {
    return passagesAwaitingVectors(this.pool, targets);
  }

  setPassageVectors(vectors: PassageVector[]): Promise<void> {
    return setPassageVectors(this.pool, vectors);
  }

  countAwaitingVectors(driveId: string, filters: Omit<FindFilters, 'limit'>, cap: number): Promise<number> {
    return countAwaitingVectors(this.pool, driveId, filters, cap);
  }

  /**
   * BM25 over the drive's documents (bm25.ts). The spec's syntax picks the candidates (words ANDed, "phrases",
   * -negation, OR: websearch_to_tsquery), at most `rankCandidates` of them, newest first; with `match: 'any'` (the
   * service's fallback when that finds nothing) any word may match, as in find's lexical leg. Headlines only for the
   * rows returned (ts_headline is costly).
   */
  async search(driveId: string, q: string, filters: SearchFilters): Promise<SearchHit[]> {
    const plan = await this.lexical.plan('search_documents', driveId, q);
    if (!plan) return [];
    const w: Where = { sql: [], params: [driveId] };
    const param = (v: unknown) => addParam(w, v);
    const match =
      filters.match === 'any'
        ? anyWordMatch(param, plan, 'd')
        : [`d.tsv @@ websearch_to_tsquery('${TS_CONFIG}', ${param(q)})`];
    documentFilters(w, filters);
    const candidates = `select d.art_id, d.path, d.tsv, d.lex_len from search_documents d
       where d.drive_id = $1 and ${[...match, ...w.sql].join(' and ')}
       order by d.updated_at desc, d.art_id desc limit ${param(this.rankCandidates)}`;
    const scored = bm25Sql(param, plan, candidates, ['art_id', 'path']);
    const { rows } = await this.pool.query<DocRow>(
      `select ${DOC_COLUMNS}, r.score,
              ts_headline('${TS_CONFIG}', case when d.preview <> '' then d.preview else search_path_words(d.path) end,
                          ${param(plan.highlight)}::tsquery, '${HEADLINE_OPTS}') as snippet
       from (select * from (${scored}) s order by s.score desc, s.path limit ${param(filters.limit)}) r
       join search_documents d on d.drive_id = $1 and d.art_id = r.art_id
       order by r.score desc, r.path`,
      w.params,
    );
    return rows.map(toSearchHit);
  }

  /**
   * Find's lexical leg: BM25 over the passages' own stretches, any word of the query may match (operators keep their
   * meaning: bm25.ts), the candidates found through the rarest terms, at most `rankCandidates` of them, newest first.
   */
  async findLexical(driveId: string, q: string, filters: FindFilters): Promise<PassageHit[]> {
    const plan = await this.lexical.plan('search_passages', driveId, q);
    if (!plan) return [];
    const w: Where = { sql: [], params: [driveId] };
    const param = (v: unknown) => addParam(w, v);
    const match = anyWordMatch(param, plan, 'p');
    passageFilters(w, filters);
    const candidates = `select p.art_id, p.ord, d.path, p.tsv, p.lex_len
       from search_passages p join search_documents d using (drive_id, art_id)
       where p.drive_id = $1 and ${[...match, ...w.sql].join(' and ')}
       order by d.updated_at desc, d.art_id desc, p.ord limit ${param(this.rankCandidates)}`;
    const scored = bm25Sql(param, plan, candidates, ['art_id', 'ord', 'path']);
    const { rows } = await this.pool.query<PassageRow>(
      `select ${PASSAGE_COLUMNS}, r.score,
              ts_headline('${TS_CONFIG}', p.text, ${param(plan.highlight)}::tsquery, '${PASSAGE_HEADLINE_OPTS}') as snippet
       from (select * from (${scored}) s order by s.score desc, s.path, s.ord limit ${param(filters.limit)}) r
       join search_passages p on p.drive_id = $1 and p.art_id = r.art_id and p.ord = r.ord
       join search_documents d on d.drive_id = $1 and d.art_id = r.art_id
       order by r.score desc, r.path, r.ord`,
      w.params,
    );
    return rows.map(toPassageHit);
  }

  /**
   * The exact rerank of the signature scan's best candidates (rankSemantic, src/search/semantic-leg.ts), joined back
   * for the hit fields and snippets of the top `limit`.
   */
  async findSemantic(driveId: string, query: SemanticQuery, filters: FindFilters): Promise<PassageHit[]> {
    const top = await rankSemantic(this.semantic, driveId, query.vector, filters);
    if (!top.length) return [];
    const { rows } = await this.pool.query<PassageRow>(
      `select ${PASSAGE_COLUMNS}, r.score,
              ts_headline('${TS_CONFIG}', p.text, websearch_to_tsquery('${TS_CONFIG}', $2), '${PASSAGE_HEADLINE_OPTS}') as snippet
       from unnest($3::text[], $4::int[], $5::float8[]) as r(art_id, ord, score)
       join search_passages p on p.drive_id = $1 and p.art_id = r.art_id and p.ord = r.ord
       join search_documents d on d.drive_id = $1 and d.art_id = r.art_id
       order by r.score desc, d.path, p.ord
       limit $6`,
      [driveId, query.q, top.map((c) => c.artId), top.map((c) => c.ord), top.map((c) => c.score), filters.limit],
    );
    return rows.map(toPassageHit);
  }
}

/**
 * An any-word match: the operators (phrases and OR groups that must match, exclusions) and, when no operator narrows
 * the candidates, the plan's rarest terms.
 */
function anyWordMatch(param: (value: unknown) => string, plan: LexicalPlan, alias: string): string[] {
  const operators = operatorSql(param, plan, alias);
  return plan.required.length ? operators : [`${alias}.tsv @@ ${param(plan.candidates)}::tsquery`, ...operators];
}
