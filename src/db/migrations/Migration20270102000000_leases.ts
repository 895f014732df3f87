import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 56: leases with fencing tokens (docs/decisions/leases.md). A lease covers exact paths, a prefix or a glob
 * until `expires_at` (the database's clock); `fence` comes from the drive's own counter, so it only grows. Lapsed and
 * released leases stay a week: a write carrying an older fence than a later lease on the same paths is refused even
 * after that later lease ended.
 */
export class Migration20270102000000_leases extends Migration {
  override up(): void {
    this.addSql(`create table if not exists leases (
      id text primary key,
      drive_id text not null references drives(id) on delete cascade,
      fence bigint not null,
      mode text not null check (mode in ('exclusive', 'shared')),
      paths text[] not null default '{}',
      prefix text null,
      glob text null,
      holder_actor text null,
      holder_credential text not null,
      holder_kind text not null,
      note text null,
      created_at timestamptz not null default clock_timestamp(),
      expires_at timestamptz not null,
      released_at timestamptz null
    );`);
    this.addSql('create index if not exists leases_drive_expiry on leases (drive_id, expires_at);');
    this.addSql('create index if not exists leases_drive_fence on leases (drive_id, fence);');
    this.addSql(`create table if not exists lease_fences (
      drive_id text primary key references drives(id) on delete cascade,
      last_fence bigint not null
    );`);
  }

  override down(): void {
    this.addSql('drop table if exists lease_fences;');
    this.addSql('drop table if exists leases;');
  }
}
