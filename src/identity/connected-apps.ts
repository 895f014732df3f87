import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { one, rows, transaction } from '../db/sql.js';
import { holdingsOf, type DriveHoldings } from '../drives/drive-stats.js';
import { DRIVE_READ_SCOPE } from './scopes.js';
import { revokeGrant } from './mcp-oauth.js';

/**
 * "Connected apps": the MCP clients a person let into one of their drives on the consent page (/oauth2/authorize),
 * each a live OAuth grant, and disconnecting one. The consent page links here, so access given in one click is taken
 * back in one. A grant counts as connected while a token issued under it still works: once every token has expired
 * the app has to ask again anyway.
 */
export interface ConnectedApp {
  grantId: string;
  clientId: string;
  name: string;
  driveId: string;
  drive: DriveHoldings;
  readOnly: boolean;
  connectedAt: Date;
  /** When a token was last issued under the grant (the connection or a refresh). */
  lastRefreshedAt: Date;
}

const LIVE_GRANT = `g.revoked_at is null and exists (select 1 from oauth_tokens t where t.grant_id = g.id
  and t.revoked_at is null and t.expires_at > now())`;

export async function listConnectedApps(app: AppContext, userId: string): Promise<ConnectedApp[]> {
  const db = app.orm.em.fork();
  const grants = await rows<{
    id: string;
    client_id: string;
    client_name: string | null;
    drive_id: string;
    scope: string;
    created_at: Date;
    last_refreshed_at: Date;
  }>(
    db,
    `select g.id, g.client_id, c.client_name, g.drive_id, g.scope, g.created_at,
            (select max(t.created_at) from oauth_tokens t where t.grant_id = g.id) as last_refreshed_at
       from oauth_grants g left join oauth_clients c on c.client_id = g.client_id
      where g.user_id = ? and ${LIVE_GRANT}
      order by g.created_at desc, g.id`,
    [userId],
  );
  const held = await holdingsOf(db, [...new Set(grants.map((g) => g.drive_id))]);
  return grants.map((g) => ({
    grantId: g.id,
    clientId: g.client_id,
    name: g.client_name ?? g.client_id,
    driveId: g.drive_id,
    drive: held.get(g.drive_id)!,
    readOnly: g.scope === DRIVE_READ_SCOPE,
    connectedAt: g.created_at,
    lastRefreshedAt: g.last_refreshed_at,
  }));
}

/** Disconnects one of the person's own apps: the grant and all its tokens die at once. Another's grant is not found. */
export async function disconnectApp(app: AppContext, userId: string, grantId: string): Promise<{ name: string }> {
  return transaction(app, async (tx) => {
    const g = await one<{ id: string; name: string }>(
      tx,
      `select g.id, coalesce(c.client_name, g.client_id) as name
         from oauth_grants g left join oauth_clients c on c.client_id = g.client_id
        where g.id = ? and g.user_id = ? and g.revoked_at is null for update of g`,
      [grantId, userId],
    );
    if (!g) throw new AppError('NOT_FOUND', 'no connected app with this id on your account');
    await revokeGrant(tx, g.id);
    return { name: g.name };
  });
}
