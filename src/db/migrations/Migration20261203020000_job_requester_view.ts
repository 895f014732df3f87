import { Migration } from '@mikro-orm/migrations';

/**
 * A compile job runs with the files its requester can read: `restricted` marks a job enqueued by a
 * grantee (not the drive's own credentials), whose snapshot leaves out the project's subfolders
 * that take no grant from above (`inherit_grants: false`), as a listing through the grant does.
 */
export class Migration20261203020000_job_requester_view extends Migration {
  override up(): void {
    this.addSql(`alter table compile_jobs add column restricted boolean not null default false;`);
  }
}
