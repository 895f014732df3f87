import { Migration } from '@mikro-orm/migrations';

/** A compile job that ends for a reason with a catalogue code (ENGINE_UNAVAILABLE) records it beside the message. */
export class Migration20261203010000_job_error_code extends Migration {
  override up(): void {
    this.addSql(`alter table compile_jobs add column error_code text null;`);
  }
}
