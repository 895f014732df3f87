import { AppError } from '../lib/errors.js';
import type { Embedder } from './embeddings.js';
import {
  WIKI_PREFIX,
  type FindFilters,
  type PassageHit,
  type SearchEngine,
  type SearchFilters,
  type SearchHit,
} from './engine.js';
import { reciprocalRankFusion } from './rrf.js';
import { PENDING_CAP, semanticReport, type SemanticReport } from './semantic-report.js';
import type { UsageRecorder } from './usage.js';

/**
 * The use cases behind /v0/search and /v0/find: mode selection, the `_wiki/` rule, hybrid
 * fusion and usage counting. Engines only store and query.
 */
export type FindMode = 'hybrid' | 'lexical' | 'semantic';
/** How a search matched: every word (the spec's syntax) or, when that found nothing, any word. */
export type SearchMatch = 'all' | 'any';

export interface FindInput extends Omit<FindFilters, 'excludePrefix'> {
  q: string;
  mode: FindMode;
}

export interface FusedPassageHit extends PassageHit {
  rankLexical: number | null;
  rankSemantic: number | null;
}

/** Find's hits and what its semantic leg did (semantic-report.ts). */
export interface FindResult {
  hits: FusedPassageHit[];
  semantic: SemanticReport;
}

export interface SearchServiceDeps {
  engine: SearchEngine;
  /** Absent when no embeddings provider is configured. */
  embedder?: Embedder;
  usage: UsageRecorder;
  onWarning?: (message: string, err: unknown) => void;
}

/** How many candidates each leg of a hybrid query contributes before fusion. */
export function hybridCandidates(limit: number): number {
  return Math.min(200, Math.max(2 * limit, 40));
}

export class SearchService {
  constructor(private readonly deps: SearchServiceDeps) {}

  get semanticAvailable(): boolean {
    return this.deps.embedder !== undefined;
  }

  /**
   * The spec's syntax (every word must match); when that finds nothing, any word may match, ranked the same way, and
   * `match` says so (docs/decisions/search.md, "BM25").
   */
  async search(driveId: string, q: string, filters: SearchFilters): Promise<{ hits: SearchHit[]; match: SearchMatch }> {
    let hits = await this.deps.engine.search(driveId, q, filters);
    let match: SearchMatch = filters.match ?? 'all';
    if (!hits.length && match === 'all') {
      hits = await this.deps.engine.search(driveId, q, { ...filters, match: 'any' });
      if (hits.length) match = 'any';
    }
    await this.deps.usage.record(driveId, 'retrieval_queries');
    return { hits, match };
  }

  async find(driveId: string, input: FindInput): Promise<FindResult> {
    const { q, mode, ...rest } = input;
    const filters: FindFilters = { ...rest, excludePrefix: WIKI_PREFIX };
    let result: FindResult;
    if (mode === 'semantic') {
      if (!this.deps.embedder) {
        throw new AppError(
          'EMBEDDINGS_NOT_CONFIGURED',
          'semantic find needs an embeddings provider; set EMBEDDINGS_URL (and EMBEDDINGS_API_KEY)',
        );
      }
      const vector = await this.embedQuery(q);
      const [semantic, pending] = await Promise.all([
        this.deps.engine.findSemantic(driveId, { vector, q }, filters),
        this.pendingVectors(driveId, filters),
      ]);
      result = {
        hits: semantic.map((h, i) => ({ ...h, rankLexical: null, rankSemantic: i + 1 })),
        semantic: semanticReport(mode, { configured: true, pending }),
      };
    } else if (mode === 'lexical' || !this.deps.embedder) {
      result = {
        hits: await this.lexicalOnly(driveId, q, filters),
        semantic: semanticReport(mode, { configured: this.semanticAvailable }),
      };
    } else {
      result = await this.hybrid(driveId, q, filters);
    }
    await this.deps.usage.record(driveId, 'retrieval_queries');
    return result;
  }

  /** Passages in the query's scope the semantic leg cannot see yet (no vector): one probe of a partial index. */
  private pendingVectors(driveId: string, filters: FindFilters): Promise<number> {
    const { limit: _limit, ...scope } = filters;
    return this.deps.engine.countAwaitingVectors(driveId, scope, PENDING_CAP);
  }

  private async lexicalOnly(driveId: string, q: string, filters: FindFilters): Promise<FusedPassageHit[]> {
    const lexical = await this.deps.engine.findLexical(driveId, q, filters);
    return lexical.map((h, i) => ({ ...h, rankLexical: i + 1, rankSemantic: null }));
  }

  /**
   * Both legs in parallel, fused with RRF (k = 60), beside the count of passages still without a vector. If the
   * provider fails, the lexical leg answers alone, and the report says so.
   */
  private async hybrid(driveId: string, q: string, filters: FindFilters): Promise<FindResult> {
    const wide = { ...filters, limit: hybridCandidates(filters.limit) };
    let failed = false;
    const semanticLeg = this.embedQuery(q)
      .then((vector) => this.deps.engine.findSemantic(driveId, { vector, q }, wide))
      .catch((err: unknown) => {
        if (!(err instanceof AppError) || err.code !== 'EMBEDDINGS_UNAVAILABLE') throw err;
        this.deps.onWarning?.('hybrid find fell back to lexical: embeddings provider failed', err);
        failed = true;
        return [] as PassageHit[];
      });
    const [lexical, semantic, pending] = await Promise.all([
      this.deps.engine.findLexical(driveId, q, wide),
      semanticLeg,
      this.pendingVectors(driveId, filters),
    ]);
    const fused = reciprocalRankFusion([lexical, semantic], (h) => `${h.artId}#${h.ord}`);
    return {
      hits: fused.slice(0, filters.limit).map(({ item, score, ranks }) => ({
        ...item,
        score,
        rankLexical: ranks[0] ?? null,
        rankSemantic: ranks[1] ?? null,
      })),
      semantic: semanticReport('hybrid', { configured: true, failed, pending }),
    };
  }

  private async embedQuery(q: string): Promise<number[]> {
    try {
      const [vector] = await this.deps.embedder!.embed([q]);
      return vector!;
    } catch (err) {
      throw new AppError('EMBEDDINGS_UNAVAILABLE', `could not embed the query: ${(err as Error).message}`);
    }
  }
}
