import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 58: a passage of a document knows the unit it lies in (`{slide}`, `{sheet, range}`, `{chapter}`,
 * `{heading}`); find hits carry it. Null for text, code, PDF (pages have their own columns) and timed text.
 */
export class Migration20270104000000_passage_anchors extends Migration {
  override up(): void {
    this.addSql('alter table search_passages add column if not exists anchor jsonb null;');
  }

  override down(): void {
    this.addSql('alter table search_passages drop column if exists anchor;');
  }
}
