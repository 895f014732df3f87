import { Migration } from '@mikro-orm/migrations';

/**
 * The per-drive wiki (docs/decisions.md, Wiki). `artifacts.llm_index` is the language model's
 * reading of the artifact ({summary, outline, entities, concepts}) and `wiki_hash` the content hash
 * it describes (unchanged content is never sent again). `wiki_pages` has one row per entity or
 * concept page (its row lock orders the writers of that page; `dirty` marks pages to re-render);
 * `wiki_mentions` holds what each source says about it, one row per (page, source), so merging and
 * removal are SQL and the page markdown is rendered from the rows. Mentions carry no foreign key to
 * the source artifact: a purge must still find them to take them off the pages.
 */
export class Migration20261202000000_wiki extends Migration {
  override up(): void {
    this.addSql(`alter table artifacts add column llm_index jsonb null, add column wiki_hash text null;`);
    this.addSql(`
      create table wiki_pages (
        drive_id text not null references drives(id) on delete cascade,
        kind text not null check (kind in ('entity', 'concept')),
        slug text not null,
        name text not null,
        dirty boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        primary key (drive_id, kind, slug)
      );`);
    this.addSql(`create index wiki_pages_dirty_idx on wiki_pages (drive_id) where dirty;`);
    this.addSql(`
      create table wiki_mentions (
        drive_id text not null,
        kind text not null,
        slug text not null,
        source_art_id text not null,
        name text not null,
        type text null,
        text text not null,
        created_at timestamptz not null default now(),
        primary key (drive_id, kind, slug, source_art_id),
        foreign key (drive_id, kind, slug) references wiki_pages (drive_id, kind, slug) on delete cascade
      );`);
    this.addSql(`create index wiki_mentions_source_idx on wiki_mentions (drive_id, source_art_id);`);
    this.addSql(`
      create table wiki_failures (
        art_id text primary key,
        drive_id text not null references drives(id) on delete cascade,
        hash text not null,
        error text not null,
        attempts integer not null,
        failed_at timestamptz not null default now()
      );`);
  }

  override down(): void {
    this.addSql(`drop table if exists wiki_failures;`);
    this.addSql(`drop table if exists wiki_mentions;`);
    this.addSql(`drop table if exists wiki_pages;`);
    this.addSql(`alter table artifacts drop column if exists llm_index, drop column if exists wiki_hash;`);
  }
}
