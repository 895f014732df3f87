import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 53, a lexical leg as good as BM25 (docs/decisions/search.md, "BM25"):
 * - `search_english`: the english configuration with accents folded first (unaccent), so `résumé` finds `resume`
 *   and `Zoë` finds `Zoe` (only tokens with non-ASCII letters pass through unaccent). Every tsvector and tsquery of
 *   the engine uses it.
 * - A passage's tsvector covers its own stretch only (`own_chars`: up to where the next passage starts), so every
 *   token is indexed once: the ~400-token overlap serves what a hit returns, not what it matches.
 * - `lex_len`: the words a row's tsvector was made from, BM25's document length (counted by the indexer).
 * - Documents index the kept original file name beside the path (weight A).
 */
export class Migration20261231000000_bm25 extends Migration {
  override up(): void {
    this.addSql('create extension if not exists unaccent;');
    this.addSql(`do $$ begin
      if not exists (select 1 from pg_ts_config where cfgname = 'search_english') then
        create text search configuration search_english (copy = english);
        alter text search configuration search_english
          alter mapping for hword, hword_part, word with unaccent, english_stem;
      end if;
    end $$;`);
    this.addSql('drop index if exists search_passages_tsv_idx;');
    this.addSql('alter table search_passages drop column tsv;');
    this.addSql(
      'alter table search_passages add column own_chars integer null, add column lex_len integer not null default 0;',
    );
    this.addSql(`alter table search_passages add column tsv tsvector generated always as
      (to_tsvector('search_english'::regconfig, left(text, coalesce(own_chars, length(text))))) stored;`);
    this.addSql('create index search_passages_tsv_idx on search_passages using gin (tsv);');
    this.addSql('drop index if exists search_documents_tsv_idx;');
    this.addSql('alter table search_documents drop column tsv;');
    this.addSql(
      'alter table search_documents add column filename text null, add column lex_len integer not null default 0;',
    );
    this.addSql(`alter table search_documents add column tsv tsvector generated always as (
      setweight(to_tsvector('search_english'::regconfig, search_path_words(path) || ' ' || coalesce(filename, '')), 'A') ||
      setweight(to_tsvector('search_english'::regconfig, preview), 'B') ||
      setweight(jsonb_to_tsvector('search_english'::regconfig, metadata, '["string", "numeric", "key"]'), 'C') ||
      setweight(to_tsvector('search_english'::regconfig, search_labels_text(labels)), 'D')) stored;`);
    this.addSql('create index search_documents_tsv_idx on search_documents using gin (tsv);');
    // Rows indexed before have no length: the words of what they index, once.
    this.addSql(
      `update search_passages set lex_len = coalesce(array_length(regexp_split_to_array(trim(text), '\\s+'), 1), 0);`,
    );
    this.addSql(`update search_documents set lex_len =
      coalesce(array_length(regexp_split_to_array(trim(search_path_words(path) || ' ' || preview), '\\s+'), 1), 0);`);
  }

  override down(): void {
    this.addSql('drop index if exists search_documents_tsv_idx;');
    this.addSql('alter table search_documents drop column tsv, drop column filename, drop column lex_len;');
    this.addSql(`alter table search_documents add column tsv tsvector generated always as (
      setweight(to_tsvector('english'::regconfig, search_path_words(path)), 'A') ||
      setweight(to_tsvector('english'::regconfig, preview), 'B') ||
      setweight(jsonb_to_tsvector('english'::regconfig, metadata, '["string", "numeric", "key"]'), 'C') ||
      setweight(to_tsvector('english'::regconfig, search_labels_text(labels)), 'D')) stored;`);
    this.addSql('create index search_documents_tsv_idx on search_documents using gin (tsv);');
    this.addSql('drop index if exists search_passages_tsv_idx;');
    this.addSql('alter table search_passages drop column tsv, drop column own_chars, drop column lex_len;');
    this.addSql(`alter table search_passages add column tsv tsvector generated always as
      (to_tsvector('english'::regconfig, text)) stored;`);
    this.addSql('create index search_passages_tsv_idx on search_passages using gin (tsv);');
    this.addSql('drop text search configuration if exists search_english;');
  }
}
