/**
 * The search-engine port. Two engines implement it (PostgreSQL, the default, and Typesense);
 * both pass the same contract suite (test/search/engine-contract.ts). Engines only store and
 * query; ranking fusion, embeddings and the `_wiki/` rule live in the search service.
 */

import type { Modality } from '../lib/extract.js';
import type { Anchor } from '../lib/documents/units.js';
export type { Anchor } from '../lib/documents/units.js';
export { MODALITIES, type Modality } from '../lib/extract.js';

/** The artifact record fields the index keeps (read from the artifacts domain). */
export interface ArtifactFields {
  driveId: string;
  artId: string;
  path: string;
  contentType: string;
  /** The server-derived file type (ArtifactOut.file_type), used by the `file_type` filter. */
  fileType: string;
  labels: string[];
  metadata: Record<string, unknown>;
  updatedAt: Date;
  versionNumber: number;
  /** The kept original file name (X-Drive-Filename), searchable beside the path. */
  filename?: string | null;
}

/** The lexical document of one artifact: what `/v0/search` ranks. */
export interface SearchDocument extends ArtifactFields {
  /** The first ~16 KB of extracted text; empty for types whose content is not searchable. */
  preview: string;
  /** `done`, `partial: <why>`, `failed: <why>`; null when the content is not read (src/lib/documents/state.ts). */
  extraction?: string | null;
  /** The extractor that made the passages (`docx@1`); null for text, code, media. */
  extractor?: string | null;
}

/** Exactly one span pair is set, chosen by modality (SPEC 2.4). */
export interface PassageSpans {
  charStart?: number;
  charEnd?: number;
  pageStart?: number;
  pageEnd?: number;
  timeStartMs?: number;
  timeEndMs?: number;
  /** The document unit the passage lies in (a slide, a sheet and range, a chapter, a heading path); char spans are
   * offsets in that unit's text. */
  anchor?: Anchor;
}

export interface Passage extends PassageSpans {
  ord: number;
  text: string;
  modality: Modality;
  /**
   * Unit-length embedding, or null: no embeddings provider is configured, or its vector is still to come (the `embed`
   * topic fills it in; the semantic leg skips the passage until then).
   */
  embedding: number[] | null;
}

/** A stored passage without a vector: what the `embed` topic works on. */
export interface PassageAwaitingVector {
  driveId: string;
  artId: string;
  versionNumber: number;
  ord: number;
  text: string;
}

export interface PassageVector extends Omit<PassageAwaitingVector, 'text'> {
  embedding: number[];
}

/** One artifact's passages at one version. */
export interface PassageSet {
  driveId: string;
  artId: string;
  versionNumber: number;
  passages: Passage[];
}

/** Fields that change without a new version: rename/move, labels, metadata. */
export interface ArtifactPatch {
  path?: string;
  labels?: string[];
  metadata?: Record<string, unknown>;
  updatedAt?: Date;
}

export interface SearchFilters {
  labels?: string[];
  fileType?: string;
  prefix?: string;
  /** Inclusive bounds on updated_at. */
  updatedAfter?: Date;
  updatedBefore?: Date;
  limit: number;
  /**
   * Search only: `all` (the default, the spec's implicit AND) or `any` (any word may match; the service's fallback when
   * `all` finds nothing).
   */
  match?: 'all' | 'any';
}

export interface FindFilters extends SearchFilters {
  modalities?: Modality[];
  /** Paths starting with this are never returned (the service passes `_wiki/`). */
  excludePrefix?: string;
}

interface HitBase {
  artId: string;
  driveId: string;
  path: string;
  contentType: string;
  fileType: string;
  labels: string[];
  updatedAt: Date;
  versionNumber: number;
  /** Text around the matches, matches wrapped in `<mark>`…`</mark>`. */
  snippet: string;
  /** Engine-specific relevance; higher is better; comparable only within one result list. */
  score: number;
}

export type SearchHit = HitBase;

export interface PassageHit extends HitBase, PassageSpans {
  modality: Modality;
  ord: number;
  text: string;
}

export interface SemanticQuery {
  /** Unit-length query embedding. */
  vector: number[];
  /** The query text, used only to highlight the snippet. */
  q: string;
}

export interface SearchEngine {
  readonly name: 'postgres' | 'typesense';
  /** Creates collections/tables the engine needs; idempotent. */
  init(): Promise<void>;
  /** Inserts or replaces the document; a document never goes back to an older version. */
  upsertDocument(doc: SearchDocument): Promise<void>;
  /**
   * Replaces every passage of the artifact at once (readers see the old set or the new, never a mix).
   * No-op when the artifact has no document (removed while the pass ran; the pending remove follows).
   */
  replacePassages(driveId: string, artId: string, versionNumber: number, passages: Passage[]): Promise<void>;
  /** upsertDocument for a batch (the indexer's): one round trip on PostgreSQL. */
  upsertDocuments(docs: SearchDocument[]): Promise<void>;
  /** replacePassages for a batch, each artifact's set replaced at once (PostgreSQL: one transaction for all). */
  replacePassageSets(sets: PassageSet[]): Promise<void>;
  patchArtifact(driveId: string, artId: string, patch: ArtifactPatch): Promise<void>;
  removeArtifact(driveId: string, artId: string): Promise<void>;
  search(driveId: string, q: string, filters: SearchFilters): Promise<SearchHit[]>;
  findLexical(driveId: string, q: string, filters: FindFilters): Promise<PassageHit[]>;
  findSemantic(driveId: string, query: SemanticQuery, filters: FindFilters): Promise<PassageHit[]>;
  /**
   * Indexing has gone quiet: fold what it just wrote into the engine's main structures, so queries stop paying for it
   * separately (PostgreSQL: the GIN indexes' pending lists).
   */
  mergePendingEntries(): Promise<void>;
  /** The passages of these artifacts stored without a vector, by artifact and ord. */
  passagesAwaitingVectors(targets: { driveId: string; artId: string }[]): Promise<PassageAwaitingVector[]>;
  /**
   * Gives stored passages their vectors. A passage replaced since it was read (another version) or given one already
   * is left as it is.
   */
  setPassageVectors(vectors: PassageVector[]): Promise<void>;
  /** How many passages find would search with these filters are stored without a vector, counted up to `cap`. */
  countAwaitingVectors(driveId: string, filters: Omit<FindFilters, 'limit'>, cap: number): Promise<number>;
}

/** System-generated wiki pages: searchable, never embedded, never returned by find (SPEC 1, 4.2). */
export const WIKI_PREFIX = '_wiki/';

export const SNIPPET_MARK = { start: '<mark>', stop: '</mark>' } as const;
