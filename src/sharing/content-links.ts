import { createHmac } from 'node:crypto';
import type { AppContext } from '../platform/context.js';
import type { BlobRef } from '../files/content.js';
import { safeEqual } from '../lib/secrets.js';
import { one } from '../db/sql.js';

/**
 * Content links: the credential of the content origin (CONTENT_URL). The viewer mints one only
 * after the one authorization rule (or a share redemption) let the visitor read an artifact; the
 * link names that exact blob (hash, size, type, name) and expires, so the content origin needs no
 * cookie, and uploaded HTML/SVG run there, never on the app origin. Serving one looks the artifact up
 * (`openContentLink`), so a deleted file's link dies at once; a revoked grant or share is bounded by the link's
 * short life (CONTENT_LINK_TTL_S: the page that mints it loads it at once; docs/decisions/hardening.md).
 */
export const CONTENT_LINK_TTL_S = 120;

interface Payload {
  h: string;
  s: number;
  t: string;
  n: string;
  a: string;
  v: number;
  /** Expiry, epoch seconds. */
  e: number;
}

function mac(app: AppContext, payload: string): string {
  const secret = app.config.secrets.sessionSecret;
  if (!secret) throw new Error('SESSION_SECRET is not set: content links cannot be signed');
  return createHmac('sha256', secret).update(`content-link:${payload}`).digest('base64url');
}

/** A signed token for one blob; the content origin serves it at `/c/{token}/{file name}`. */
export function mintContentLink(app: AppContext, blob: BlobRef, ttlS = CONTENT_LINK_TTL_S): string {
  const name = blob.path.slice(blob.path.lastIndexOf('/') + 1);
  const p: Payload = {
    h: blob.hash,
    s: blob.size,
    t: blob.contentType,
    n: name,
    a: blob.artId,
    v: blob.versionNumber,
    e: Math.floor(Date.now() / 1000) + ttlS,
  };
  const payload = Buffer.from(JSON.stringify(p)).toString('base64url');
  return `${payload}.${mac(app, payload)}`;
}

/** The blob a live, untampered token names, or undefined. */
export function verifyContentLink(app: AppContext, token: string): BlobRef | undefined {
  const dot = token.lastIndexOf('.');
  if (dot <= 0 || token.length > 4096) return undefined;
  const payload = token.slice(0, dot);
  if (!safeEqual(token.slice(dot + 1), mac(app, payload))) return undefined;
  try {
    const p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Payload;
    if (typeof p.e !== 'number' || p.e * 1000 <= Date.now()) return undefined;
    return { artId: p.a, hash: p.h, size: p.s, contentType: p.t, path: p.n, versionNumber: p.v };
  } catch {
    return undefined;
  }
}

/** The blob a live token names, while its artifact is not deleted and still has that version; else undefined. */
export async function openContentLink(app: AppContext, token: string): Promise<BlobRef | undefined> {
  const blob = verifyContentLink(app, token);
  if (!blob) return undefined;
  const live = await one<{ ok: number }>(
    app.orm.em.fork(),
    `select 1 as ok from artifacts a join artifact_versions v on v.art_id = a.id and v.version_number = ?
      where a.id = ? and a.deleted_at is null`,
    [blob.versionNumber, blob.artId],
  );
  return live ? blob : undefined;
}
