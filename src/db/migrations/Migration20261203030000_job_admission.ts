import { Migration } from '@mikro-orm/migrations';

/**
 * Fair compile scheduling (src/projects/admission.ts): a job takes one of its drive's running
 * places (`admitted`) before its workflow asks a compile slot for it, so one drive cannot hold
 * every slot while another drive's job waits.
 */
export class Migration20261203030000_job_admission extends Migration {
  override up(): void {
    this.addSql(`alter table compile_jobs add column admitted boolean not null default false;`);
    this.addSql(
      `create index compile_jobs_drive_open_idx on compile_jobs (drive_id) where status in ('queued', 'running');`,
    );
  }
}
