import type { AppContext } from '../platform/context.js';
import { one, rows } from '../db/sql.js';

/**
 * The drives of one person (issue 55): a web account owns every drive it claimed or its consent page created, and
 * the web shows them all, each by its name (or id), when it was claimed and what wrote to it last (the newest event's
 * actor and credential kind).
 */
export interface PersonDrive {
  id: string;
  name: string | null;
  claimedAt: Date | null;
  createdAt: Date;
  lastWrite: { at: Date; actor: string | null; credentialKind: string | null } | null;
}

/** Every live drive the account owns, oldest first (the first is the one a new session opens). */
export async function personDrives(app: AppContext, userId: string): Promise<PersonDrive[]> {
  const found = await rows<{
    id: string;
    name: string | null;
    claimed_at: Date | null;
    created_at: Date;
    last_at: Date | null;
    actor_name: string | null;
    credential_kind: string | null;
  }>(
    app.orm.em.fork(),
    `select d.id, d.name, d.claimed_at, d.created_at, e.created_at as last_at, e.actor_name, e.credential_kind
       from drives d
       left join lateral (select created_at, actor_name, credential_kind from events
                           where drive_id = d.id order by seq desc limit 1) e on true
      where d.owner_user_id = ? and d.deleted_at is null
      order by d.created_at, d.id`,
    [userId],
  );
  return found.map((r) => ({
    id: r.id,
    name: r.name,
    claimedAt: r.claimed_at,
    createdAt: r.created_at,
    lastWrite: r.last_at ? { at: r.last_at, actor: r.actor_name, credentialKind: r.credential_kind } : null,
  }));
}

/**
 * The drive a signed-in person works on for a request: `wanted` when they own it (soft-deleted included, so its
 * Danger zone can restore it), else, when `wanted` is absent, their oldest live drive; undefined when they own none,
 * or `wanted` is not theirs (the caller then reaches it only through grants, or answers not found).
 */
export async function ownedDriveOf(
  app: AppContext,
  userId: string,
  wanted: string | null | undefined,
): Promise<string | undefined> {
  const row = await one<{ id: string }>(
    app.orm.em.fork(),
    `select id from drives
      where owner_user_id = ? and case when ?::text is null then deleted_at is null else id = ? end
      order by created_at, id limit 1`,
    [userId, wanted ?? null, wanted ?? null],
  );
  return row?.id;
}
