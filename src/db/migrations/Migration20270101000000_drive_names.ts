import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 55, part 1: a drive has a name its owner sets (PATCH /v0/drives/me, the web's Settings), shown wherever the
 * drive's id is shown; null until set (the pages then fall back to the id).
 */
export class Migration20270101000000_drive_names extends Migration {
  override up(): void {
    this.addSql('alter table drives add column if not exists name text null;');
  }

  override down(): void {
    this.addSql('alter table drives drop column if exists name;');
  }
}
