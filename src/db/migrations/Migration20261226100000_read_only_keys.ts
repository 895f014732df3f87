import { Migration } from '@mikro-orm/migrations';

/**
 * Read-only API keys (docs/decisions/identity.md, "Read-only credentials"): the owner picks the access when minting;
 * every existing key keeps reading and writing.
 */
export class Migration20261226100000_read_only_keys extends Migration {
  override up(): void {
    this.addSql(`alter table api_keys add column read_only boolean not null default false;`);
  }

  override down(): void {
    this.addSql(`alter table api_keys drop column if exists read_only;`);
  }
}
