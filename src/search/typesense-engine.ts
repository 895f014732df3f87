import { Client } from 'typesense';
import type { CollectionCreateSchema } from 'typesense/lib/Typesense/Collections.js';
import type { SearchResponseHit } from 'typesense/lib/Typesense/Documents.js';
import {
  SNIPPET_MARK,
  type ArtifactPatch,
  type FindFilters,
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
import { branchesOf, parseQuery } from './query-syntax.js';
import * as vectors from './typesense-vectors.js';
import {
  documentFields,
  filterOf,
  hitOf,
  passageHitOf,
  pathWords,
  PASSAGE_SPAN_FIELDS,
  quote,
  renderAtom,
  type Doc,
} from './typesense-documents.js';

/**
 * Typesense engine (TYPESENSE_URL). Two collections: documents (id = art_id) and passages
 * (id = art_id:ord) with the document fields copied in, so filters need no join. Fields are
 * stemmed (English); typos, prefix matching and token dropping are off, to match the spec's
 * exact-word semantics. OR is run as one search per DNF branch (multi_search) and merged.
 */
export interface TypesenseSettings {
  url: string;
  apiKey: string;
  dimensions: number;
  collectionPrefix?: string;
}

export class TypesenseSearchEngine implements SearchEngine {
  readonly name = 'typesense' as const;
  private readonly client: Client;
  private readonly documents: string;
  private readonly passages: string;

  constructor(private readonly settings: TypesenseSettings) {
    const url = new URL(settings.url);
    this.client = new Client({
      nodes: [
        {
          host: url.hostname,
          port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
          protocol: url.protocol.replace(':', ''),
        },
      ],
      apiKey: settings.apiKey,
      connectionTimeoutSeconds: 5,
      numRetries: 2,
    });
    const prefix = settings.collectionPrefix ?? 'drive_';
    this.documents = `${prefix}documents`;
    this.passages = `${prefix}passages`;
  }

  private initialised?: Promise<void>;

  async close(): Promise<void> {}

  /** Collections are created on first use, so callers need not remember init(). */
  private ready(): Promise<void> {
    this.initialised ??= this.createCollections().catch((err: unknown) => {
      this.initialised = undefined;
      throw err;
    });
    return this.initialised;
  }

  init(): Promise<void> {
    return this.ready();
  }

  private async createCollections(): Promise<void> {
    const base: CollectionCreateSchema['fields'] = [
      { name: 'drive_id', type: 'string' },
      { name: 'art_id', type: 'string' },
      { name: 'path', type: 'string', index: false, optional: true },
      { name: 'path_words', type: 'string', stem: true },
      { name: 'path_prefixes', type: 'string[]' },
      { name: 'content_type', type: 'string', index: false, optional: true },
      { name: 'file_type', type: 'string' },
      { name: 'labels', type: 'string[]' },
      { name: 'labels_text', type: 'string', stem: true },
      { name: 'metadata_text', type: 'string', stem: true },
      { name: 'updated_at', type: 'int64' },
      { name: 'version_number', type: 'int32' },
    ];
    const schemas: CollectionCreateSchema[] = [
      { name: this.documents, fields: [...base, { name: 'preview', type: 'string', stem: true }] },
      {
        name: this.passages,
        fields: [
          ...base,
          { name: 'ord', type: 'int32' },
          { name: 'modality', type: 'string' },
          { name: 'text', type: 'string', stem: true },
          ...PASSAGE_SPAN_FIELDS.map((name) => ({ name, type: 'int32' as const, optional: true })),
          { name: 'anchor', type: 'string', index: false, optional: true },
          { name: 'embedding', type: 'float[]', num_dim: this.settings.dimensions, optional: true },
          { ...vectors.AWAITING_FIELD },
        ],
      },
    ];
    for (const schema of schemas) {
      const exists = await this.client.collections(schema.name).exists();
      if (!exists) await this.client.collections().create(schema);
    }
    await vectors.ensureAwaitingField(this.client, this.passages);
  }

  async upsertDocument(doc: SearchDocument): Promise<void> {
    await this.ready();
    const current = (await this.client
      .collections<Doc>(this.documents)
      .documents(doc.artId)
      .retrieve()
      .catch(() => null)) as Doc | null;
    if (current && Number(current.version_number) > doc.versionNumber) return;
    await this.client
      .collections<Doc>(this.documents)
      .documents()
      .upsert({
        id: doc.artId,
        drive_id: doc.driveId,
        art_id: doc.artId,
        content_type: doc.contentType,
        file_type: doc.fileType,
        version_number: doc.versionNumber,
        preview: doc.preview,
        ...documentFields(doc),
      });
  }

  async upsertDocuments(docs: SearchDocument[]): Promise<void> {
    for (const doc of docs) await this.upsertDocument(doc);
  }

  /** One artifact after another: Typesense has no transaction to span them. */
  async replacePassageSets(sets: PassageSet[]): Promise<void> {
    for (const s of sets) await this.replacePassages(s.driveId, s.artId, s.versionNumber, s.passages);
  }

  async replacePassages(driveId: string, artId: string, versionNumber: number, passages: Passage[]): Promise<void> {
    await this.ready();
    const doc = (await this.client.collections<Doc>(this.documents).documents(artId).retrieve()) as Doc;
    const shared = Object.fromEntries(
      [
        'drive_id',
        'art_id',
        'path',
        'path_words',
        'path_prefixes',
        'content_type',
        'file_type',
        'labels',
        'labels_text',
        'metadata_text',
        'updated_at',
      ].map((k) => [k, doc[k]]),
    );
    const rows = passages.map((p) => ({
      ...shared,
      id: `${artId}:${p.ord}`,
      version_number: versionNumber,
      ord: p.ord,
      modality: p.modality,
      text: p.text,
      char_start: p.charStart,
      char_end: p.charEnd,
      page_start: p.pageStart,
      page_end: p.pageEnd,
      time_start_ms: p.timeStartMs,
      time_end_ms: p.timeEndMs,
      ...(p.anchor ? { anchor: JSON.stringify(p.anchor) } : {}),
      ...(p.embedding ? { embedding: p.embedding } : {}),
      awaiting_vector: !p.embedding,
    }));
    // Typesense has no transactions: upsert the new set, then drop passages beyond it.
    if (rows.length) await this.client.collections<Doc>(this.passages).documents().import(rows, { action: 'upsert' });
    await this.client
      .collections(this.passages)
      .documents()
      .delete({ filter_by: `drive_id:=${quote(driveId)} && art_id:=${quote(artId)} && ord:>=${passages.length}` });
  }

  async patchArtifact(driveId: string, artId: string, patch: ArtifactPatch): Promise<void> {
    await this.ready();
    const fields = documentFields(patch);
    if (!Object.keys(fields).length) return;
    await this.client
      .collections<Doc>(this.documents)
      .documents(artId)
      .update(fields)
      .catch((err: { httpStatus?: number }) => {
        if (err.httpStatus !== 404) throw err;
      });
    await this.client
      .collections<Doc>(this.passages)
      .documents()
      .update(fields, { filter_by: `drive_id:=${quote(driveId)} && art_id:=${quote(artId)}` });
  }

  async passagesAwaitingVectors(targets: { driveId: string; artId: string }[]): Promise<PassageAwaitingVector[]> {
    await this.ready();
    return vectors.typesenseAwaiting(this.client, this.passages, targets);
  }

  async setPassageVectors(passageVectors: PassageVector[]): Promise<void> {
    await this.ready();
    await vectors.typesenseSetVectors(this.client, this.passages, passageVectors);
  }

  async countAwaitingVectors(driveId: string, filters: Omit<FindFilters, 'limit'>, cap: number): Promise<number> {
    await this.ready();
    return vectors.typesenseCountAwaiting(
      this.client,
      this.passages,
      filterOf(driveId, { ...filters, limit: cap }),
      cap,
    );
  }

  /** Typesense indexes each document in place as it is written: nothing is left pending. */
  async mergePendingEntries(): Promise<void> {}

  async removeArtifact(driveId: string, artId: string): Promise<void> {
    await this.ready();
    const filter_by = `drive_id:=${quote(driveId)} && art_id:=${quote(artId)}`;
    await this.client.collections(this.documents).documents().delete({ filter_by });
    await this.client.collections(this.passages).documents().delete({ filter_by });
  }

  async search(driveId: string, q: string, filters: SearchFilters): Promise<SearchHit[]> {
    await this.ready();
    const hits = await this.textSearch(
      this.documents,
      'path_words,preview,metadata_text,labels_text',
      '8,4,2,1',
      q,
      driveId,
      filters,
      'preview',
      filters.match === 'any',
    );
    return hits.map(({ doc, score, snippet }) => ({
      ...hitOf(doc),
      snippet: snippet || pathWords(String(doc.path)),
      score,
    }));
  }

  async findLexical(driveId: string, q: string, filters: FindFilters): Promise<PassageHit[]> {
    await this.ready();
    const hits = await this.textSearch(this.passages, 'text', '1', q, driveId, filters, 'text', true);
    return hits.map(({ doc, score, snippet }) => passageHitOf(doc, score, snippet || String(doc.text).slice(0, 240)));
  }

  async findSemantic(driveId: string, query: SemanticQuery, filters: FindFilters): Promise<PassageHit[]> {
    await this.ready();
    const res = await this.client
      .collections<Doc>(this.passages)
      .documents()
      .search({
        q: '*',
        vector_query: `embedding:([${query.vector.join(',')}], k:${filters.limit})`,
        filter_by: filterOf(driveId, filters),
        per_page: filters.limit,
        exclude_fields: 'embedding',
      });
    return (res.hits ?? []).map((h) => {
      const distance = (h as SearchResponseHit<Doc> & { vector_distance?: number }).vector_distance ?? 1;
      return passageHitOf(h.document, 1 - distance, String(h.document.text).slice(0, 240));
    });
  }

  /**
   * One search per OR branch, merged by best text_match, best first. `anyWord`: words may be dropped from either
   * side until a page is full (find's lexical leg and search's fallback let any word match; text_match ranks).
   */
  private async textSearch(
    collection: string,
    queryBy: string,
    weights: string,
    q: string,
    driveId: string,
    filters: FindFilters,
    snippetField: string,
    anyWord = false,
  ) {
    const parsed = parseQuery(q);
    const negations = parsed.excluded.map((a) => `-${renderAtom(a)}`).join(' ');
    const branches = branchesOf(parsed);
    if (!branches.length) return [];
    const common = {
      collection,
      query_by: queryBy,
      query_by_weights: weights,
      filter_by: filterOf(driveId, filters),
      per_page: filters.limit,
      num_typos: 0,
      prefix: false,
      drop_tokens_threshold: anyWord ? filters.limit : 0,
      ...(anyWord ? { drop_tokens_mode: 'both_sides:3' as const } : {}),
      typo_tokens_threshold: 0,
      highlight_fields: snippetField,
      highlight_start_tag: SNIPPET_MARK.start,
      highlight_end_tag: SNIPPET_MARK.stop,
      exclude_fields: 'embedding',
    };
    const { results } = await this.client.multiSearch.perform<Doc[]>({
      searches: branches.map((b) => ({ ...common, q: `${b.map(renderAtom).join(' ')} ${negations}`.trim() })),
    });
    const best = new Map<string, { doc: Doc; score: number; snippet: string }>();
    for (const r of results) {
      for (const h of (r as { hits?: SearchResponseHit<Doc>[] }).hits ?? []) {
        const id = String(h.document.id);
        const snippet = h.highlights?.find((x) => x.field === snippetField)?.snippet ?? '';
        if ((best.get(id)?.score ?? -1) < h.text_match) best.set(id, { doc: h.document, score: h.text_match, snippet });
      }
    }
    return [...best.values()]
      .sort((a, b) => b.score - a.score || String(a.doc.path).localeCompare(String(b.doc.path)))
      .slice(0, filters.limit);
  }
}
