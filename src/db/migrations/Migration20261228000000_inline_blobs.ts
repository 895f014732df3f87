import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 40: small files inline. Bytes up to INLINE_BLOB_MAX_BYTES are kept in their blob row (`content`), written in
 * the same transaction as the version that references them, so a small write makes no object-store round trip.
 * Null: the bytes are in object storage under blobKey(hash).
 */
export class Migration20261228000000_inline_blobs extends Migration {
  override up(): void {
    this.addSql('alter table blobs add column content bytea null;');
  }

  override down(): void {
    this.addSql('alter table blobs drop column if exists content;');
  }
}
