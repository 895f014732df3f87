import { Migration } from '@mikro-orm/migrations';

/**
 * A drive's search documents in most-recently-updated order. Broad queries rank only their most
 * recent matches (RANK_CANDIDATES in src/search/postgres-engine.ts); this index lets PostgreSQL
 * walk a drive newest first and stop after that many matches, for search and for find's lexical
 * leg (which reaches the passages through the documents). See docs/decisions.md, Search.
 */
export class Migration20261122050000_search_recency extends Migration {
  override up(): void {
    this.addSql(
      'create index search_documents_recent_idx on search_documents (drive_id, updated_at desc, art_id desc);',
    );
  }

  override down(): void {
    this.addSql('drop index if exists search_documents_recent_idx;');
  }
}
