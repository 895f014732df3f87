import { Migration } from '@mikro-orm/migrations';

/**
 * Server-side browser sessions (issue 23, finding 11): the signed cookie of a signed-in human now
 * names a row here (by the SHA-256 of a random session id), so signing out, or "sign out
 * everywhere", ends it wherever the cookie is presented.
 */
export class Migration20261203110000_web_sessions extends Migration {
  override up(): void {
    this.addSql(`
      create table web_sessions (
        id_hash text primary key,
        user_id text not null references human_users(id) on delete cascade,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        revoked_at timestamptz null
      );`);
    this.addSql(`create index web_sessions_user_idx on web_sessions (user_id) where revoked_at is null;`);
  }

  override down(): void {
    this.addSql(`drop table if exists web_sessions;`);
  }
}
