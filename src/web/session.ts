import { createHmac, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { safeEqual } from '../identity/secrets.js';
import type { Config } from '../config.js';

/**
 * The browser session (spec 5.11): a signed cookie `ad_session` holding the signed-in human,
 * the drive id they are working on, and a CSRF token. HttpOnly, SameSite=Lax, Secure on https.
 * A visitor who has not signed in still gets a session with a CSRF token, for the sign-in forms.
 */
export const SESSION_COOKIE = 'ad_session';

export interface Session {
  csrf: string;
  /** Expiry, epoch seconds. */
  exp: number;
  uid?: string;
  email?: string;
  drv?: string | null;
}

export class WebAuthNotConfigured extends Error {}

function secretOf(config: Config): string {
  if (!config.secrets.sessionSecret) throw new WebAuthNotConfigured('SESSION_SECRET is not set');
  return config.secrets.sessionSecret;
}

const sign = (config: Config, payload: string) => createHmac('sha256', secretOf(config)).update(payload).digest('base64url');

function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function readSession(config: Config, req: Request): Session | undefined {
  const raw = readCookie(req, SESSION_COOKIE);
  if (!raw) return undefined;
  const dot = raw.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const payload = raw.slice(0, dot);
  if (!safeEqual(raw.slice(dot + 1), sign(config, payload))) return undefined;
  try {
    const session = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Session;
    if (typeof session.csrf !== 'string' || typeof session.exp !== 'number' || session.exp * 1000 <= Date.now()) return undefined;
    return session;
  } catch {
    return undefined;
  }
}

export function writeSession(config: Config, req: Request, res: Response, fields: Omit<Session, 'csrf' | 'exp'>): Session {
  const session: Session = { ...fields, csrf: randomBytes(24).toString('base64url'), exp: Math.floor(Date.now() / 1000) + config.durations.sessionS };
  const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
  const secure = req.secure || config.http.webUrl.startsWith('https:');
  res.cookie(SESSION_COOKIE, `${payload}.${sign(config, payload)}`, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: config.durations.sessionS * 1000,
    encode: (v) => v,
  });
  return session;
}

/** The current session, or a fresh anonymous one (so every form can carry a CSRF token). */
export function ensureSession(config: Config, req: Request, res: Response): Session {
  return readSession(config, req) ?? writeSession(config, req, res, {});
}

export function csrfValid(session: Session | undefined, submitted: unknown): boolean {
  return !!session && typeof submitted === 'string' && safeEqual(submitted, session.csrf);
}

/**
 * A one-time message for the page a form post redirects to (POST → 303 → GET), such as a secret
 * shown once: signed, HttpOnly, scoped to that page's path, read once and cleared, so reloading
 * the page neither repeats the action nor shows the secret again.
 */
const FLASH_COOKIE = 'ad_flash';

export function writeFlash(config: Config, res: Response, path: string, value: Record<string, string>): void {
  const payload = Buffer.from(JSON.stringify({ ...value, exp: Math.floor(Date.now() / 1000) + 120 })).toString('base64url');
  res.cookie(FLASH_COOKIE, `${payload}.${sign(config, `flash:${payload}`)}`, {
    httpOnly: true, sameSite: 'strict', secure: config.http.webUrl.startsWith('https:'), path, maxAge: 120_000, encode: (v) => v,
  });
}

export function takeFlash(config: Config, req: Request, res: Response, path: string): Record<string, string> | undefined {
  const raw = readCookie(req, FLASH_COOKIE);
  if (!raw) return undefined;
  res.clearCookie(FLASH_COOKIE, { path });
  const dot = raw.lastIndexOf('.');
  if (dot <= 0 || !safeEqual(raw.slice(dot + 1), sign(config, `flash:${raw.slice(0, dot)}`))) return undefined;
  try {
    const v = JSON.parse(Buffer.from(raw.slice(0, dot), 'base64url').toString('utf8')) as Record<string, string> & { exp: number };
    return v.exp * 1000 > Date.now() ? v : undefined;
  } catch {
    return undefined;
  }
}
