import { Migration } from '@mikro-orm/migrations';

/**
 * Email is proven before it counts (issue 23, finding 1). `human_users.email_verified_at` is set
 * when the account's owner follows a link mailed to the address; until then the address is
 * neither a drive's owner email nor matched by `{type: user, email}` grants. Each link is a
 * single-use secret stored as SHA-256 with its expiry; a resend adds a row (older links keep
 * working until they expire or one is used, which spends them all).
 */
export class Migration20261203100000_email_verification extends Migration {
  override up(): void {
    this.addSql(`alter table human_users add column email_verified_at timestamptz null;`);
    this.addSql(`
      create table email_verifications (
        token_hash text primary key,
        user_id text not null references human_users(id) on delete cascade,
        email text not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        used_at timestamptz null
      );`);
    this.addSql(`create index email_verifications_user_idx on email_verifications (user_id);`);
    // No account was verified before: drives they claimed keep no owner email until their owner verifies.
    this.addSql(
      `update drives d set owner_email = null from human_users u where u.id = d.owner_user_id and u.email_verified_at is null;`,
    );
  }

  override down(): void {
    this.addSql(`drop table if exists email_verifications;`);
    this.addSql(`alter table human_users drop column if exists email_verified_at;`);
  }
}
