import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 58, documents beyond PDF:
 * - a passage of a document knows the unit it lies in (`{slide}`, `{sheet, range}`, `{chapter}`, `{heading}`); find
 *   hits carry it. Null for text, code, PDF (pages have their own columns) and timed text;
 * - a document's extraction state (`done`, `partial: <why>`, `failed: <why>`; null when the content is not read) and
 *   the extractor that made its passages (`docx@1`): the sweep re-queues documents whose extractor has improved since.
 */
export class Migration20270104000000_document_extraction extends Migration {
  override up(): void {
    this.addSql('alter table search_passages add column if not exists anchor jsonb null;');
    this.addSql('alter table search_documents add column if not exists extraction text null;');
    this.addSql('alter table search_documents add column if not exists extractor text null;');
  }

  override down(): void {
    this.addSql('alter table search_passages drop column if exists anchor;');
    this.addSql('alter table search_documents drop column if exists extraction;');
    this.addSql('alter table search_documents drop column if exists extractor;');
  }
}
