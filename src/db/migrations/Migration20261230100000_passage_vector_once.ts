import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 40, ingestion (third round): a passage's vector is stored once, as the float4 bytes every reader uses (the
 * rerank, the graph build and its delta). The real[] beside them was parsed from text and written on every insert
 * for no reader: ~0.7 MB of heap and WAL per MB of ingested text (docs/decisions/write-path.md, Third round).
 * `down()` rebuilds the real[] from the bytes (big-endian IEEE 754 single precision, decoded in SQL).
 */
export class Migration20261230100000_passage_vector_once extends Migration {
  override up(): void {
    // Rows written before the bytes were stored by the indexer had them generated from the real[]: none lacks them.
    this.addSql(`update search_passages set embedding_bytes = search_vector_bytes(embedding)
      where embedding_bytes is null and embedding is not null;`);
    this.addSql('alter table search_passages drop column embedding;');
  }

  override down(): void {
    this.addSql(`create function search_bytes_vector(b bytea) returns real[] language sql immutable parallel safe as $$
      select array_agg((case when e = 0 and m = 0 then 0::float8
                             when e = 0 then m::float8 / 8388608 * 2 ^ (-126)
                             else (1 + m::float8 / 8388608) * 2 ^ (e - 127) end
                        * (case when s = 1 then -1 else 1 end))::real order by i)
        from (select i, get_byte(b, i * 4) >> 7 as s,
                     ((get_byte(b, i * 4) & 127) << 1) | (get_byte(b, i * 4 + 1) >> 7) as e,
                     ((get_byte(b, i * 4 + 1) & 127) << 16) | (get_byte(b, i * 4 + 2) << 8) | get_byte(b, i * 4 + 3) as m
                from generate_series(0, length(b) / 4 - 1) as i) as t $$;`);
    this.addSql('alter table search_passages add column embedding real[] null;');
    this.addSql(`update search_passages set embedding = search_bytes_vector(embedding_bytes)
      where embedding_bytes is not null;`);
    this.addSql('drop function search_bytes_vector(bytea);');
  }
}
