import { Migration } from '@mikro-orm/migrations';

/**
 * Projects (a compile config on a folder), compile jobs (one Temporal workflow each) and feedback
 * tickets with their attachment snapshots. A job leaves `queued`/`running` exactly once, by a
 * conditional update, so a cancel and the compile's own end cannot both win (docs/decisions.md).
 * Feedback attachments keep the blob hash they were submitted with; the blob purge treats them as
 * references, so the bytes outlive an overwrite, delete or purge of the artifact.
 */
export class Migration20261201000000_projects_feedback extends Migration {
  override up(): void {
    this.addSql(`
      create table projects (
        fld_id text primary key references folders(id) on delete cascade,
        drive_id text not null references drives(id) on delete cascade,
        entrypoint text not null,
        engine text null check (engine in ('latex', 'typst')),
        auto_compile boolean not null default false,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql(`create index projects_auto_idx on projects (drive_id) where auto_compile;`);
    this.addSql(`
      create table compile_jobs (
        id text primary key,
        drive_id text not null references drives(id) on delete cascade,
        fld_id text not null,
        task text not null,
        engine text not null check (engine in ('latex', 'typst')),
        entrypoint text not null,
        trigger text not null check (trigger in ('api', 'auto_compile')),
        actor_name text null,
        status text not null default 'queued' check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'timed_out')),
        cancel_requested boolean not null default false,
        attempt integer not null default 0,
        inputs jsonb not null default '[]',
        outputs jsonb not null default '[]',
        diagnostics jsonb not null default '[]',
        page_count integer null,
        error text null,
        log text null,
        runner jsonb null,
        request_key text null unique,
        created_at timestamptz not null default now(),
        started_at timestamptz null,
        finished_at timestamptz null
      );`);
    this.addSql(`create index compile_jobs_project_idx on compile_jobs (drive_id, fld_id, created_at desc);`);
    this.addSql(`
      create table feedback_tickets (
        id text primary key,
        drive_id text not null references drives(id) on delete cascade,
        kind text not null,
        title text not null,
        body text not null,
        contact jsonb null,
        status text not null default 'received' check (status in ('received', 'triaged', 'in_progress', 'resolved', 'declined')),
        actor_name text null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql(`create index feedback_tickets_drive_idx on feedback_tickets (drive_id, created_at desc);`);
    this.addSql(`create index feedback_tickets_status_idx on feedback_tickets (status, created_at);`);
    this.addSql(`
      create table feedback_attachments (
        fbk_id text not null references feedback_tickets(id) on delete cascade,
        ord integer not null,
        art_id text not null,
        path text not null,
        version_number integer not null,
        hash text not null,
        size_bytes bigint not null,
        content_type text not null,
        primary key (fbk_id, ord)
      );`);
    this.addSql(`create index feedback_attachments_hash_idx on feedback_attachments (hash);`);
    this.addSql(`
      create table feedback_transitions (
        fbk_id text not null references feedback_tickets(id) on delete cascade,
        from_status text not null,
        to_status text not null,
        operator text null,
        note text null,
        created_at timestamptz not null default clock_timestamp()
      );`);
  }

  override down(): void {
    for (const t of ['feedback_transitions', 'feedback_attachments', 'feedback_tickets', 'compile_jobs', 'projects']) {
      this.addSql(`drop table if exists ${t};`);
    }
  }
}
