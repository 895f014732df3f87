import { Migration } from '@mikro-orm/migrations';

/**
 * MCP: single-use upload tokens (stored by hash; the frozen upload fields; consumed exactly once
 * by a conditional update in the write transaction) and OAuth 2.1 for MCP clients: registered
 * public clients, authorization codes (hashed, single use, PKCE S256) and token chains (one
 * grant = one chain; every access and refresh token of it stored by hash; a reused refresh token
 * revokes the chain).
 */
export class Migration20261122060000_mcp extends Migration {
  override up(): void {
    this.addSql(`
      create table upload_tokens (
        token_hash text primary key,
        drive_id text not null references drives(id) on delete cascade,
        principal_kind text not null,
        credential_id text not null,
        identity_id text null,
        scope text not null,
        path text not null,
        content_type text not null,
        max_bytes bigint not null check (max_bytes > 0),
        labels text[] null,
        metadata jsonb null,
        source jsonb null,
        actor_name text null,
        change_summary text null,
        if_match integer null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        consumed_at timestamptz null,
        art_id text null,
        version_number integer null
      );`);
    this.addSql(`create index upload_tokens_expiry_idx on upload_tokens (expires_at);`);
    this.addSql(`
      create table oauth_clients (
        client_id text primary key,
        client_name text null,
        redirect_uris text[] not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`
      create table oauth_codes (
        code_hash text primary key,
        client_id text not null references oauth_clients(client_id) on delete cascade,
        drive_id text not null references drives(id) on delete cascade,
        user_id text not null references human_users(id) on delete cascade,
        redirect_uri text not null,
        code_challenge text not null,
        scope text not null,
        resource text null,
        expires_at timestamptz not null,
        used_at timestamptz null
      );`);
    this.addSql(`
      create table oauth_grants (
        id text primary key,
        client_id text not null references oauth_clients(client_id) on delete cascade,
        drive_id text not null references drives(id) on delete cascade,
        user_id text not null references human_users(id) on delete cascade,
        scope text not null,
        created_at timestamptz not null default now(),
        revoked_at timestamptz null
      );`);
    this.addSql(`
      create table oauth_tokens (
        token_hash text primary key,
        grant_id text not null references oauth_grants(id) on delete cascade,
        kind text not null check (kind in ('access', 'refresh')),
        expires_at timestamptz not null,
        used_at timestamptz null,
        revoked_at timestamptz null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`create index oauth_tokens_grant_idx on oauth_tokens (grant_id);`);
  }

  override down(): void {
    this.addSql(
      `drop table if exists oauth_tokens; drop table if exists oauth_grants; drop table if exists oauth_codes; drop table if exists oauth_clients; drop table if exists upload_tokens;`,
    );
  }
}
