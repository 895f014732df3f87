import type { AppContext } from '../platform/context.js';
import { one, rows } from '../db/sql.js';
import { hashSecret, newSecret } from '../lib/secrets.js';

/**
 * Signed-in browser sessions, held server-side (docs/decisions.md, Identity hardening): the
 * cookie (src/web/session.ts) carries a random session id, stored here as SHA-256 with the
 * account and an expiry (`SESSION_TTL_S`). A session counts only while its row is live, so
 * signing out ends it wherever the cookie is presented, and "sign out everywhere" ends every
 * session of the account at once.
 */
export interface LiveSession {
  userId: string;
  email: string;
  verified: boolean;
}

/** A new session for the account; returns the id the cookie carries. */
export async function createWebSession(app: AppContext, userId: string): Promise<string> {
  const sid = newSecret('');
  await rows(
    app.orm.em.fork(),
    `insert into web_sessions (id_hash, user_id, expires_at) values (?, ?, now() + make_interval(secs => ?))`,
    [hashSecret(sid), userId, app.config.durations.sessionS],
  );
  return sid;
}

/**
 * The account behind a live (unrevoked, unexpired) session of `userId`, with its current email; undefined otherwise.
 */
export async function liveWebSession(app: AppContext, sid: string, userId: string): Promise<LiveSession | undefined> {
  const row = await one<{ user_id: string; email: string; verified: boolean }>(
    app.orm.em.fork(),
    `select s.user_id, u.email, u.email_verified_at is not null as verified
       from web_sessions s join human_users u on u.id = s.user_id
      where s.id_hash = ? and s.user_id = ? and s.revoked_at is null and s.expires_at > now()`,
    [hashSecret(sid), userId],
  );
  return row ? { userId: row.user_id, email: row.email, verified: row.verified } : undefined;
}

/** Sign-out: this session ends. */
export async function revokeWebSession(app: AppContext, sid: string): Promise<void> {
  await rows(app.orm.em.fork(), `update web_sessions set revoked_at = now() where id_hash = ? and revoked_at is null`, [
    hashSecret(sid),
  ]);
}

/** "Sign out everywhere": every live session of the account ends; returns how many. */
export async function revokeAllWebSessions(app: AppContext, userId: string): Promise<number> {
  const gone = await rows(
    app.orm.em.fork(),
    `update web_sessions set revoked_at = now() where user_id = ? and revoked_at is null returning 1`,
    [userId],
  );
  return gone.length;
}
