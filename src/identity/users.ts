import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { HumanUser, type HumanUserRow } from '../db/entities/human-user.js';
import { newId } from '../lib/ids.js';
import { hashPassword, verifyPassword } from '../lib/passwords.js';

/** Human accounts for the web pages: email + password, hashed with scrypt (src/lib/passwords.ts). */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;
/**
 * One addr-spec and nothing else (issue 37): a dot-atom local part (no comma, quote, angle bracket, space or
 * parenthesis, which a mailer could read as a list or a display name) at a host name.
 */
export const EMAIL_RE =
  /^(?=[^@]{1,64}@)[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?=.{1,255}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.[a-z]{2,63}$/i;

// Compared against when the email is unknown, so a miss costs as much time as a wrong password.
let dummyHash: Promise<string> | undefined;

export type SignUpResult =
  { ok: true; user: HumanUserRow } | { ok: false; reason: 'invalid_email' | 'weak_password' | 'exists' };

export async function signUp(em: EntityManager, email: string, password: string): Promise<SignUpResult> {
  const normalised = email.trim().toLowerCase();
  if (normalised.length > 320 || !EMAIL_RE.test(normalised)) return { ok: false, reason: 'invalid_email' };
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) return { ok: false, reason: 'weak_password' };
  const user = em.create(HumanUser, {
    id: newId('usr'),
    email: normalised,
    passwordHash: await hashPassword(password),
  });
  try {
    await em.persist(user).flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) return { ok: false, reason: 'exists' };
    throw err;
  }
  return { ok: true, user };
}

/** The user when the email and password match, else null (same cost either way). */
export async function signIn(em: EntityManager, email: string, password: string): Promise<HumanUserRow | null> {
  if (password.length > PASSWORD_MAX) return null;
  const normalised = email.trim().toLowerCase();
  const user = normalised.length <= 320 ? await em.findOne(HumanUser, { email: normalised }) : null;
  if (!user) {
    dummyHash ??= hashPassword('not-a-real-password');
    await verifyPassword(password, await dummyHash);
    return null;
  }
  return (await verifyPassword(password, user.passwordHash)) ? user : null;
}
