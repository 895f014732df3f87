import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 40, ingestion: a passage's signature and float4 bytes are written by the indexer, computed in the worker from
 * the vector it already holds (src/search/passage-rows.ts), instead of generated in PostgreSQL. The generating SQL
 * functions unnested and re-aggregated every vector twice per row: ~150 ms of PostgreSQL CPU per MB of ingested text,
 * a fifth of the passage insert (docs/decisions/write-path.md, Ingestion). Existing values stay as they are.
 */
export class Migration20261229100000_passage_vectors_written extends Migration {
  override up(): void {
    this.addSql(`alter table search_passages
      alter column signature drop expression,
      alter column embedding_bytes drop expression;`);
  }

  override down(): void {
    this.addSql(`alter table search_passages
      drop column signature cascade,
      drop column embedding_bytes;`);
    this.addSql(`alter table search_passages
      add column signature bit varying generated always as (search_signature(embedding)) stored,
      add column embedding_bytes bytea generated always as (search_vector_bytes(embedding)) stored;`);
    this.addSql(`create index search_passages_signature_idx on search_passages (drive_id, art_id, ord)
      include (signature, modality) where signature is not null;`);
    this.addSql(`create index search_passages_written_idx on search_passages (drive_id, written_xid)
      where signature is not null;`);
  }
}
