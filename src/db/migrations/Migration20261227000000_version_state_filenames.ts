import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 39:
 * - each version records the labels and metadata it was written with, so restoring a version brings them back
 *   (null on versions written before this migration: a restore then keeps the artifact's current ones);
 * - the original file name a person gave (X-Drive-Filename) is kept beside the mapped path, per artifact and per
 *   version.
 */
export class Migration20261227000000_version_state_filenames extends Migration {
  override up(): void {
    this.addSql(`alter table artifact_versions
      add column labels text[] null,
      add column metadata jsonb null,
      add column filename text null;`);
    this.addSql('alter table artifacts add column filename text null;');
    this.addSql('alter table upload_sessions add column filename text null;');
  }

  override down(): void {
    this.addSql('alter table upload_sessions drop column if exists filename;');
    this.addSql('alter table artifacts drop column if exists filename;');
    this.addSql(`alter table artifact_versions
      drop column if exists labels, drop column if exists metadata, drop column if exists filename;`);
  }
}
