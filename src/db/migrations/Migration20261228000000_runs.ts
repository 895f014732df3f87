import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 38 (docs/decisions/runs.md): every event names the run it belongs to and the kind of credential that wrote
 * it; the index serves `GET /v0/events?run_id=`, one run's changes and the run list. Snapshots are named seqs of a
 * drive (bounded per drive) that pin what they reference against the trash purge.
 */
export class Migration20261228000000_runs extends Migration {
  override up(): void {
    this.addSql(`alter table events add column run_id text null, add column credential_kind text null;`);
    this.addSql(`create index events_drive_run_idx on events (drive_id, run_id, seq) where run_id is not null;`);
    this.addSql(`
      create table snapshots (
        id text primary key,
        drive_id text not null references drives(id) on delete cascade,
        seq bigint not null,
        label text not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`create index snapshots_drive_idx on snapshots (drive_id, seq);`);
  }

  override down(): void {
    this.addSql(`drop table if exists snapshots;`);
    this.addSql(`drop index if exists events_drive_run_idx;`);
    this.addSql(`alter table events drop column if exists run_id, drop column if exists credential_kind;`);
  }
}
