import { AppError } from '../lib/errors.js';
import { hasPrefix, newId } from '../lib/ids.js';
import type { Timestamp } from '../lib/time.js';
import { one, type Db } from '../db/sql.js';
import type { Role } from './authorize.js';

/** Grant rows and their principals (REFERENCE §2.8 GrantOut, §4 GrantPrincipalIn). */
export interface GrantRow {
  id: string;
  drive_id: string;
  art_id: string | null;
  fld_id: string | null;
  principal_type: PrincipalType;
  principal_id: string | null;
  principal_email: string | null;
  principal_key: string;
  role: Role;
  granted_by_type: string;
  granted_by_id: string;
  on_behalf_of: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export const PRINCIPAL_TYPES = ['user', 'agent', 'org', 'anyone'] as const;
export type PrincipalType = (typeof PRINCIPAL_TYPES)[number];
export interface PrincipalIn {
  type: PrincipalType;
  id?: string | null;
  email?: string | null;
}

const EMAIL_RE = /^[^@\s]{1,64}@[^@\s]{1,255}$/;

/**
 * The principal rules of REFERENCE §4: anyone has neither id nor email; agent and org an id; user exactly one of them.
 */
export function checkPrincipal(p: PrincipalIn): {
  type: PrincipalType;
  id: string | null;
  email: string | null;
  key: string;
} {
  const id = p.id ?? null;
  const email = p.email ? p.email.trim().toLowerCase() : null;
  const bad = (message: string) => new AppError('INVALID_PRINCIPAL', message);
  switch (p.type) {
    case 'anyone':
      if (id || email) throw bad('an anyone principal takes no id or email');
      return { type: 'anyone', id: null, email: null, key: 'anyone' };
    case 'agent':
    case 'org':
      if (!id || email) throw bad(`an ${p.type} principal needs an id and no email`);
      if (p.type === 'agent' && !hasPrefix(id, 'aid'))
        throw bad('an agent principal id is an agent identity id (aid_...)');
      return { type: p.type, id, email: null, key: `${p.type}:${id}` };
    case 'user':
      if ((id === null) === (email === null)) throw bad('a user principal needs exactly one of id and email');
      if (email !== null && (email.length > 320 || !EMAIL_RE.test(email)))
        throw bad('the user email is not an email address');
      return { type: 'user', id, email, key: id !== null ? `user:${id}` : `email:${email}` };
  }
}

export interface NewGrant {
  driveId: string;
  artId: string | null;
  fldId: string | null;
  principal: PrincipalIn;
  role: Role;
  grantedBy: { type: string; id: string; onBehalfOf: string | null };
  expiresInS: number | null;
}

/** Inserts the grant unless an unrevoked one exists for the same resource and principal (then undefined). */
export async function insertGrant(tx: Db, g: NewGrant): Promise<GrantRow | undefined> {
  const p = checkPrincipal(g.principal);
  return one<GrantRow>(
    tx,
    `insert into grants (id, drive_id, art_id, fld_id, principal_type, principal_id, principal_email, principal_key, role,
                         granted_by_type, granted_by_id, on_behalf_of, expires_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, case when ?::int is null then null else clock_timestamp() + make_interval(secs => ?::int) end)
     on conflict ((coalesce(art_id, fld_id)), principal_key) where revoked_at is null do nothing
     returning *`,
    [
      newId('grn'),
      g.driveId,
      g.artId,
      g.fldId,
      p.type,
      p.id,
      p.email,
      p.key,
      g.role,
      g.grantedBy.type,
      g.grantedBy.id,
      g.grantedBy.onBehalfOf,
      g.expiresInS,
      g.expiresInS,
    ],
  );
}
