import { Migration } from '@mikro-orm/migrations';

/**
 * The semantic leg's graph index for large drives (docs/decisions/search.md, "A graph index for large drives"):
 * - each passage gets `seq`, a number the graph stores as its key, and `written_xid`, the id of the transaction that
 *   wrote it, so a query can scan exactly the passages a graph does not hold: those whose transaction was not yet
 *   visible to the graph's build (`written_xid >= built_xmin`, xid8 never wraps);
 * - search_semantic_graphs records each drive's current graph: the S3 object holding it and the snapshot it holds.
 */
export class Migration20261225000000_semantic_graphs extends Migration {
  override up(): void {
    this.addSql(`alter table search_passages
      add column seq bigint generated always as identity,
      add column written_xid xid8 not null default pg_current_xact_id();`);
    this.addSql('create index search_passages_seq_idx on search_passages (drive_id, seq);');
    this.addSql(`create index search_passages_written_idx on search_passages (drive_id, written_xid)
      where signature is not null;`);
    this.addSql(`create table search_semantic_graphs (
      drive_id text primary key,
      object_key text not null,
      dims int not null,
      passages int not null,
      built_xmin xid8 not null,
      built_at timestamptz not null default now());`);
  }

  override down(): void {
    this.addSql('drop table if exists search_semantic_graphs;');
    this.addSql('drop index if exists search_passages_written_idx;');
    this.addSql('drop index if exists search_passages_seq_idx;');
    this.addSql('alter table search_passages drop column if exists written_xid, drop column if exists seq;');
  }
}
