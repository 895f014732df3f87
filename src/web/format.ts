import { iso, type Timestamp } from '../lib/time.js';
import { html, type Html } from './html.js';

/** Sizes and dates as people read them. */
export function humanSize(bytes: number | string): string {
  const n = Number(bytes);
  if (n < 1000) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) ((v /= 1024), (i += 1));
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "just now", "5 min ago", "3 h ago", "yesterday", else "12 Mar" (this year) or "12 Mar 2025" (UTC). */
export function humanTime(t: Timestamp | null | undefined, now = Date.now()): string {
  if (!t) return '';
  const d = new Date(t);
  const s = Math.round((now - d.getTime()) / 1000);
  if (s < 45 && s > -60) return 'just now';
  if (s > 0 && s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s > 0 && s < 86400) return `${Math.round(s / 3600)} h ago`;
  if (s > 0 && s < 2 * 86400) return 'yesterday';
  return dayOf(t, now);
}

/** A `<time>` with the exact UTC moment as its tooltip. */
export function timeTag(t: Timestamp | null | undefined): Html {
  const exact = iso(t ?? null) ?? '';
  return html`<time datetime="${exact}" title="${exact.replace('T', ' ').slice(0, 19)} UTC">${humanTime(t)}</time>`;
}

/** A drive path as a URL path: each segment encoded, slashes kept. */
export const encodePath = (p: string) => p.split('/').map(encodeURIComponent).join('/');

/** A same-site path to return to (`/…`, never `//host` or a scheme), else the fallback. */
export function safeBack(v: unknown, fallback: string): string {
  return typeof v === 'string' && /^\/(?!\/)[^\s\\]*$/.test(v) && v.length < 2048 ? v : fallback;
}

/**
 * Only same-site relative paths are followed after sign-in (no open redirects). Long enough for an OAuth
 * authorization request (a client_id URL, state, PKCE challenge and resource), which must come back whole.
 */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(value) && value.length <= 2048
    ? value
    : '/dashboard';
}

export const loginUrl = (returnTo: string) => `/auth/login?return_to=${encodeURIComponent(returnTo)}`;

/** A day as people say it: "27 Dec" (this year), "27 Dec 2027" (another), UTC. */
export function dayOf(t: Timestamp | null | undefined, now = Date.now()): string {
  if (!t) return '';
  const d = new Date(t);
  const day = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
  return d.getUTCFullYear() === new Date(now).getUTCFullYear() ? day : `${day} ${d.getUTCFullYear()}`;
}

/** A drive as a person knows it, by what it holds: "12 files (3.4 MB), the latest notes/todo.md", or "empty". */
export function driveContents(h: { files: number; bytes: number; latest: string | null }): Html {
  if (!h.files) return html`empty so far`;
  return html`<strong>${h.files} file${h.files === 1 ? '' : 's'}</strong> (${humanSize(h.bytes)})${
    h.latest ? html`, the latest <code>${h.latest}</code>` : ''
  }`;
}
