import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 54, finding 8: the write path skips the S3 work only when a version of the writing drive already references
 * the hash (dedup per drive, docs/decisions/write-path.md). The blob touch asks exactly that, so versions are indexed
 * by (hash, drive_id); the index keeps serving the purge's lookups by hash alone, so it replaces the one on hash.
 */
export class Migration20261231054000_blob_owner_index extends Migration {
  override up(): void {
    this.addSql('create index artifact_versions_hash_drive_idx on artifact_versions (hash, drive_id);');
    this.addSql('drop index if exists artifact_versions_hash_idx;');
  }

  override down(): void {
    this.addSql('create index artifact_versions_hash_idx on artifact_versions (hash);');
    this.addSql('drop index if exists artifact_versions_hash_drive_idx;');
  }
}
