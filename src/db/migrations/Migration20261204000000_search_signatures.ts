import { Migration } from '@mikro-orm/migrations';

/**
 * The semantic leg without pgvector (docs/decisions/search.md, "Semantic leg at scale"): each passage gets a
 * one-bit-per-dimension signature of its embedding (the sign of each component), scanned to pick candidates, and
 * its embedding as packed big-endian float4 bytes, which the engine reads for the exact rerank (a real[] is printed
 * as text, ~10× slower to fetch and parse). Both are generated columns, so adding them backfills every existing row
 * and every write path keeps them in step with `embedding`. The covering index lets the signature scan read
 * ~80 bytes per passage instead of the heap row.
 */
export class Migration20261204000000_search_signatures extends Migration {
  override up(): void {
    this.addSql(`create function search_signature(e real[]) returns bit varying language sql immutable parallel safe
      as $$ select string_agg(case when x > 0 then '1' else '0' end, '' order by i)::bit varying
            from unnest(e) with ordinality as t(x, i) $$;`);
    this.addSql(`create function search_vector_bytes(e real[]) returns bytea language sql immutable parallel safe
      as $$ select string_agg(float4send(x), ''::bytea order by i) from unnest(e) with ordinality as t(x, i) $$;`);
    this.addSql(`alter table search_passages
      add column signature bit varying generated always as (search_signature(embedding)) stored,
      add column embedding_bytes bytea generated always as (search_vector_bytes(embedding)) stored;`);
    this.addSql(`create index search_passages_signature_idx on search_passages (drive_id, art_id, ord)
      include (signature) where signature is not null;`);
    // Passage text is stored uncompressed (new rows): pglz on every ~5 KB passage was ~20 % of an insert's CPU,
    // and it is derived data: the artifact keeps the original (docs/decisions/search.md, Ingestion).
    this.addSql(`alter table search_passages alter column text set storage external;`);
  }

  override down(): void {
    this.addSql('alter table search_passages alter column text set storage extended;');
    this.addSql('drop index if exists search_passages_signature_idx;');
    this.addSql('alter table search_passages drop column if exists signature, drop column if exists embedding_bytes;');
    this.addSql('drop function if exists search_vector_bytes(real[]);');
    this.addSql('drop function if exists search_signature(real[]);');
  }
}
