import { Migration } from '@mikro-orm/migrations';

/**
 * Client ID metadata documents (docs/decisions/identity.md): a client whose client_id is a URL is kept as an
 * oauth_clients row, refreshed from its document once this passes (null for a registered client: never refetched).
 */
export class Migration20261227100000_oauth_client_metadata extends Migration {
  override up(): void {
    this.addSql(`alter table oauth_clients add column metadata_fresh_until timestamptz null;`);
  }

  override down(): void {
    this.addSql(`alter table oauth_clients drop column if exists metadata_fresh_until;`);
  }
}
