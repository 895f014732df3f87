import type { AppContext } from '../platform/context.js';
import { rows } from '../db/sql.js';

/**
 * The cleanup run's purge of credentials that can no longer be used: each row is checked for
 * expiry wherever it is presented, so this only keeps the tables from growing. A day's grace
 * keeps recent rows for a support question ("was my token used?"); a spent refresh token is kept
 * until it expires, since presenting it again is what reuse detection revokes a chain on.
 * Returns how many rows went, per table.
 */
const STATEMENTS: Record<string, string> = {
  upload_tokens: `delete from upload_tokens where expires_at < now() - interval '1 day'`,
  oauth_codes: `delete from oauth_codes where expires_at < now() - interval '1 day'`,
  oauth_tokens: `delete from oauth_tokens where expires_at < now() - interval '1 day'`,
  // A grant whose every token has gone is a consent nobody can use any more.
  oauth_grants: `delete from oauth_grants g where g.created_at < now() - interval '1 day'
                   and not exists (select 1 from oauth_tokens t where t.grant_id = g.id)`,
  // A registered client that never got a consent within 30 days (registration is open to anyone).
  oauth_clients: `delete from oauth_clients c where c.created_at < now() - interval '30 days'
                    and not exists (select 1 from oauth_grants g where g.client_id = c.client_id)
                    and not exists (select 1 from oauth_codes o where o.client_id = c.client_id)`,
  id_jag_replays: `delete from id_jag_replays where expires_at < now()`,
  web_sessions: `delete from web_sessions where expires_at < now() - interval '1 day' or revoked_at < now() - interval '1 day'`,
  email_verifications: `delete from email_verifications where expires_at < now() - interval '1 day'`,
  claim_attempts: `delete from claim_attempts where (status <> 'pending' or expires_at < now()) and created_at < now() - interval '30 days'`,
};

export async function purgeExpiredCredentials(ctx: AppContext): Promise<Record<string, number>> {
  const db = ctx.orm.em.fork();
  const counts: Record<string, number> = {};
  // In order: tokens before the grants they keep alive, grants and codes before their clients.
  for (const [table, sql] of Object.entries(STATEMENTS)) {
    const [gone] = await rows<{ n: number }>(
      db,
      `with gone as (${sql} returning 1) select count(*)::int as n from gone`,
    );
    counts[table] = gone?.n ?? 0;
  }
  return counts;
}
