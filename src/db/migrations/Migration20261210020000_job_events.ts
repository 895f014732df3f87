import { Migration } from '@mikro-orm/migrations';

/**
 * Compile job state changes in the change feed (docs/decisions/feed.md, Actions): a row trigger on
 * `compile_jobs` records `job.queued` at insert and `job.<status>` whenever the status changes
 * (running, succeeded, failed, cancelled), in the same statement's transaction, so every path that
 * moves a job (enqueue, claim, finish, cancel, the cleanup of stale jobs) is covered. The event
 * carries the project folder's path, so feed prefixes match it.
 */
export class Migration20261210020000_job_events extends Migration {
  override up(): void {
    this.addSql(`create function compile_jobs_event() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' and old.status is not distinct from new.status then
          return null;
        end if;
        insert into events (id, drive_id, fld_id, action, actor_name, metadata)
        values ('evt_' || substr(md5(random()::text || new.id || clock_timestamp()::text), 1, 26), new.drive_id, new.fld_id,
                'job.' || new.status, new.actor_name,
                jsonb_build_object('job_id', new.id, 'status', new.status, 'attempt', new.attempt,
                                   'entrypoint', new.entrypoint, 'trigger', new.trigger, 'error_code', new.error_code,
                                   'path', (select f.path from folders f where f.id = new.fld_id)));
        return null;
      end $$;`);
    this.addSql(
      `create trigger compile_jobs_event after insert or update of status on compile_jobs for each row execute function compile_jobs_event();`,
    );
  }

  override down(): void {
    this.addSql(`drop trigger if exists compile_jobs_event on compile_jobs;`);
    this.addSql(`drop function if exists compile_jobs_event();`);
  }
}
