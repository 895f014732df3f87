import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 56's plain-PUT window closed: the one-statement PUT (src/files/plain-put.ts) asks this function from inside its
 * own statement. A VOLATILE function takes a fresh snapshot for each query it runs, so after it has taken the drive's
 * lease lock shared (the lock a grant takes exclusively) it sees every grant that committed before, even one that
 * committed after the PUT's statement began; a grant still to come waits for the PUT's commit. It raises AD423 when a
 * lease is live on the drive or one newer than the presented fence is kept: the PUT then takes the checked path.
 * A null fence: the service's own write, which leases never hold.
 */
export class Migration20270106000000_lease_gate extends Migration {
  override up(): void {
    this.addSql(`create or replace function lease_gate(p_drive text, p_fence int8) returns boolean
      language plpgsql volatile as $fn$
      begin
        if p_fence is null then return true; end if;
        perform pg_advisory_xact_lock_shared(hashtextextended('lease:' || p_drive, 0));
        if exists (select 1 from leases where drive_id = p_drive
                     and ((released_at is null and expires_at > clock_timestamp()) or fence > p_fence)) then
          raise exception 'a lease may hold this write' using errcode = 'AD423';
        end if;
        return true;
      end $fn$;`);
  }

  override down(): void {
    this.addSql('drop function if exists lease_gate(text, int8);');
  }
}
