import { Migration } from '@mikro-orm/migrations';

/**
 * RFC 6749 4.1.2: a code presented twice revokes what it issued. Each spent authorization code
 * now records the grant (token chain) its exchange created, so a replay can find and revoke it.
 */
export class Migration20261203120000_oauth_code_grant extends Migration {
  override up(): void {
    this.addSql(
      `alter table oauth_codes add column grant_id text null references oauth_grants(id) on delete set null;`,
    );
  }

  override down(): void {
    this.addSql(`alter table oauth_codes drop column if exists grant_id;`);
  }
}
