import { Migration } from '@mikro-orm/migrations';

/**
 * The change feed's `seq` (docs/decisions/feed.md): every event gets an integer per drive, strictly
 * increasing in commit order with no gap a reader can see. A BEFORE INSERT trigger takes it from
 * `drives.event_seq` with an UPDATE, so the drive's row stays locked until the inserting transaction
 * ends: the next writer of the drive gets N+1 only after N committed (or rolled back and is reused).
 * Every insert path (single events, the folder's bulk INSERT … SELECT) is covered by the trigger.
 * The former global `seq` stays as the internal row key `log_id`.
 */
export class Migration20261210000000_event_seq extends Migration {
  override up(): void {
    this.addSql(`alter table drives add column event_seq bigint not null default 0;`);
    this.addSql(`alter table events rename column seq to log_id;`);
    this.addSql(`alter table events add column seq bigint null;`);
    this.addSql(`update events e set seq = n.rn
                   from (select log_id, row_number() over (partition by drive_id order by log_id) as rn from events) n
                  where n.log_id = e.log_id;`);
    this.addSql(`alter table events alter column seq set not null;`);
    this.addSql(
      `update drives d set event_seq = coalesce((select max(seq) from events e where e.drive_id = d.id), 0);`,
    );
    this.addSql(`drop index if exists events_drive_seq_idx;`);
    this.addSql(`drop index if exists events_drive_art_idx;`);
    this.addSql(`create unique index events_drive_seq_idx on events (drive_id, seq);`);
    this.addSql(`create index events_drive_art_idx on events (drive_id, art_id, seq);`);
    this.addSql(`create function events_assign_seq() returns trigger language plpgsql as $$
      begin
        update drives set event_seq = event_seq + 1 where id = new.drive_id returning event_seq into new.seq;
        if new.seq is null then
          raise exception 'event for unknown drive %', new.drive_id using errcode = '23503';
        end if;
        return new;
      end $$;`);
    this.addSql(
      `create trigger events_assign_seq before insert on events for each row execute function events_assign_seq();`,
    );
  }

  override down(): void {
    this.addSql(`drop trigger if exists events_assign_seq on events;`);
    this.addSql(`drop function if exists events_assign_seq();`);
    this.addSql(`drop index if exists events_drive_seq_idx;`);
    this.addSql(`drop index if exists events_drive_art_idx;`);
    this.addSql(`alter table events drop column seq;`);
    this.addSql(`alter table events rename column log_id to seq;`);
    this.addSql(`create index events_drive_seq_idx on events (drive_id, seq desc);`);
    this.addSql(`create index events_drive_art_idx on events (drive_id, art_id, seq desc);`);
    this.addSql(`alter table drives drop column event_seq;`);
  }
}
