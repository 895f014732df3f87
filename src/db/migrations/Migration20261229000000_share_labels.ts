import { Migration } from '@mikro-orm/migrations';

/** Issue 41: a share link's own label, so an owner can tell several links on one file apart ("for the reviewers"). */
export class Migration20261229000000_share_labels extends Migration {
  override up(): void {
    this.addSql('alter table shares add column label text null;');
  }

  override down(): void {
    this.addSql('alter table shares drop column if exists label;');
  }
}
