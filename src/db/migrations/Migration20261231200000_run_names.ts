import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 55 (docs/decisions/runs.md): an event names the credential that wrote it as a person called it (an API key's
 * label, an OAuth app's name), so a run reads "ci-nightly changed 12 files" rather than "api_key changed 12 files".
 * Written in the event's own INSERT with the run columns; a nullable column without a default, so no table rewrite.
 */
export class Migration20261231200000_run_names extends Migration {
  override up(): void {
    this.addSql(`alter table events add column credential_name text null;`);
  }

  override down(): void {
    this.addSql(`alter table events drop column if exists credential_name;`);
  }
}
