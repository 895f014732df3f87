import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 54: the drive's replayed state kept at some seqs, so `as_of`, revert and rewind replay only the events since
 * the nearest one (src/history/checkpoints.ts). Events are never rewritten, so a checkpoint never goes stale.
 */
export class Migration20261231000000_history_checkpoints extends Migration {
  override up(): void {
    this.addSql(`
      create table history_checkpoints (
        drive_id text not null references drives(id) on delete cascade,
        seq bigint not null,
        state text not null,
        created_at timestamptz not null default now(),
        primary key (drive_id, seq)
      );`);
  }

  override down(): void {
    this.addSql('drop table if exists history_checkpoints;');
  }
}
