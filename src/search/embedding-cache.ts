import { createHash } from 'node:crypto';
import type { Sql } from '../db/pool.js';

/**
 * Embeddings already paid for, by drive and text (SHA-256), in one vector space. The indexer looks
 * a batch's texts up before calling the provider and stores each answer the moment it arrives, so a
 * worker killed mid-batch, a copy, a restore or an overwrite that keeps most passages never pays
 * for a text twice. Per drive, so no tenant's texts shape another's work; entries go with their
 * drive and after CACHE_DAYS (src/search/sweep.ts).
 */
export const CACHE_DAYS = 30;

export interface CacheKey {
  driveId: string;
  text: string;
}

const hashOf = (text: string) => createHash('sha256').update(text).digest();
const keyOf = (driveId: string, hash: Buffer) => `${driveId}:${hash.toString('hex')}`;

export class EmbeddingCache {
  constructor(
    private readonly db: Sql,
    private readonly space: string,
  ) {}

  /** The cached vectors of `keys`, by `driveId:sha256hex`. */
  async lookup(keys: CacheKey[]): Promise<Map<string, number[]>> {
    if (!keys.length) return new Map();
    const hashes = keys.map((k) => hashOf(k.text));
    const { rows } = await this.db.query<{ drive_id: string; text_hash: Buffer; embedding: number[] }>(
      `select c.drive_id, c.text_hash, c.embedding from embedding_cache c
         join unnest($2::text[], $3::bytea[]) as k(drive_id, text_hash) on k.drive_id = c.drive_id and k.text_hash = c.text_hash
        where c.space = $1`,
      [this.space, keys.map((k) => k.driveId), hashes],
    );
    return new Map(rows.map((r) => [keyOf(r.drive_id, r.text_hash), r.embedding]));
  }

  static keyOf(k: CacheKey): string {
    return keyOf(k.driveId, hashOf(k.text));
  }

  /** Stores vectors in one statement (a repeat of a stored text keeps the first). */
  async store(entries: (CacheKey & { embedding: number[] })[]): Promise<void> {
    if (!entries.length) return;
    await this.db.query(
      `insert into embedding_cache (drive_id, space, text_hash, embedding)
       select e.drive_id, $1, e.text_hash, (select array_agg(x::real) from jsonb_array_elements_text(e.embedding) x)
         from unnest($2::text[], $3::bytea[], $4::jsonb[]) as e(drive_id, text_hash, embedding)
       on conflict do nothing`,
      [
        this.space,
        entries.map((e) => e.driveId),
        entries.map((e) => hashOf(e.text)),
        entries.map((e) => JSON.stringify(e.embedding)),
      ],
    );
  }
}
