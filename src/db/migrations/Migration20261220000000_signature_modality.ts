import { Migration } from '@mikro-orm/migrations';

/**
 * The semantic leg's covering index also carries each passage's modality (docs/decisions/search.md, "Semantic leg at
 * scale"): its coarse cut reads every matching passage of a drive from this index alone, and find's `modality`
 * filter is one of its conditions, which otherwise fetched each passage's heap row.
 */
export class Migration20261220000000_signature_modality extends Migration {
  override up(): void {
    this.addSql('drop index if exists search_passages_signature_idx;');
    this.addSql(`create index search_passages_signature_idx on search_passages (drive_id, art_id, ord)
      include (signature, modality) where signature is not null;`);
  }

  override down(): void {
    this.addSql('drop index if exists search_passages_signature_idx;');
    this.addSql(`create index search_passages_signature_idx on search_passages (drive_id, art_id, ord)
      include (signature) where signature is not null;`);
  }
}
