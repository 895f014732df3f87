import { SqlPool } from '../db/pool.js';
import type { IndexableRecord } from './artifact-source.js';
import type { Passage } from './engine.js';
import type { Extracted } from './extract.js';

/**
 * The indexing stage: what one indexing pass has produced so far, kept in PostgreSQL so each
 * step is its own Temporal activity without shipping large texts through workflow history,
 * and so embedding resumes where it stopped after a provider outage. One stage per artifact;
 * the per-artifact workflow is the only writer.
 */
export interface StagedRecord extends IndexableRecord {
  extracted: Extracted;
}

type StoredPassage = Omit<Passage, 'embedding'>;

export class IndexStage {
  private readonly pool: SqlPool;

  /** The process's shared pool (src/db/pool.ts); a URL gives a pool of its own (tests). */
  constructor(db: SqlPool | string, opts: { poolMax?: number } = {}) {
    this.pool = typeof db === 'string' ? SqlPool.standalone(db, opts.poolMax ?? 3) : db;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** Starts a pass: replaces any earlier stage of the artifact. */
  async begin(record: IndexableRecord, extracted: Extracted): Promise<void> {
    const { driveId, artId, versionNumber, ...rest } = record;
    await this.pool.query(
      `insert into search_stage (drive_id, art_id, version_number, record, extracted) values ($1, $2, $3, $4, $5)
       on conflict (drive_id, art_id) do update set version_number = excluded.version_number, record = excluded.record,
         extracted = excluded.extracted, created_at = now()`,
      [driveId, artId, versionNumber, JSON.stringify(rest), JSON.stringify(extracted)],
    );
    await this.pool.query('delete from search_stage_passages where drive_id = $1 and art_id = $2', [driveId, artId]);
  }

  async load(driveId: string, artId: string): Promise<StagedRecord | null> {
    const { rows } = await this.pool.query<{ version_number: number; record: Record<string, unknown>; extracted: Extracted }>(
      'select version_number, record, extracted from search_stage where drive_id = $1 and art_id = $2',
      [driveId, artId],
    );
    const row = rows[0];
    if (!row) return null;
    const record = row.record as unknown as Omit<IndexableRecord, 'driveId' | 'artId' | 'versionNumber'> & { updatedAt: string };
    return { ...record, driveId, artId, versionNumber: row.version_number, updatedAt: new Date(record.updatedAt), extracted: row.extracted };
  }

  async savePassages(driveId: string, artId: string, passages: Passage[]): Promise<void> {
    await this.pool.query('delete from search_stage_passages where drive_id = $1 and art_id = $2', [driveId, artId]);
    const batch = 500;
    for (let i = 0; i < passages.length; i += batch) {
      const rows = passages.slice(i, i + batch).map(({ embedding: _e, ...p }) => p);
      await this.pool.query(
        `insert into search_stage_passages (drive_id, art_id, ord, passage)
         select $1, $2, (p->>'ord')::int, p from jsonb_array_elements($3::jsonb) p`,
        [driveId, artId, JSON.stringify(rows)],
      );
    }
  }

  /** The next passages still without an embedding, in ord order. */
  async unembedded(driveId: string, artId: string, limit: number): Promise<StoredPassage[]> {
    const { rows } = await this.pool.query<{ passage: StoredPassage }>(
      `select passage from search_stage_passages where drive_id = $1 and art_id = $2 and embedding is null order by ord limit $3`,
      [driveId, artId, limit],
    );
    return rows.map((r) => r.passage);
  }

  /** Stores one batch of embeddings in a single statement, so a batch is never half-saved. */
  async saveEmbeddings(driveId: string, artId: string, items: { ord: number; embedding: number[] }[]): Promise<void> {
    await this.pool.query(
      `update search_stage_passages s set embedding = (select array_agg(e::real) from jsonb_array_elements_text(i.value->'embedding') e)
       from jsonb_array_elements($3::jsonb) i
       where s.drive_id = $1 and s.art_id = $2 and s.ord = (i.value->>'ord')::int`,
      [driveId, artId, JSON.stringify(items)],
    );
  }

  async passages(driveId: string, artId: string): Promise<Passage[]> {
    const { rows } = await this.pool.query<{ passage: StoredPassage; embedding: number[] | null }>(
      'select passage, embedding from search_stage_passages where drive_id = $1 and art_id = $2 order by ord',
      [driveId, artId],
    );
    return rows.map((r) => ({ ...r.passage, embedding: r.embedding }));
  }

  async clear(driveId: string, artId: string): Promise<void> {
    await this.pool.query('delete from search_stage where drive_id = $1 and art_id = $2', [driveId, artId]);
  }
}
