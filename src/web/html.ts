import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import { iso, type Timestamp } from '../lib/time.js';
import { STYLE } from './style.js';

/**
 * Server-rendered pages: plain strings, every interpolated value escaped with `esc`, no external
 * assets, and a strict CSP (only our own nonce'd inline style; no scripts at all). Every page has the top bar
 * (`nav`, else the brand alone); every error page (status 400 and up) ends with a way back.
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(value: unknown): string {
  // Callers pass scalars; an object shows as text, escaped.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** A trusted fragment of HTML (already escaped); `html` below will not escape it again. */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

/** Tagged template: interpolations are escaped unless they are Html (or arrays of Html). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  values.forEach((v, i) => {
    const rendered = Array.isArray(v)
      ? v.map((x) => (x instanceof Html ? x.value : esc(x))).join('')
      : v instanceof Html
        ? v.value
        : esc(v);
    out += rendered + strings[i + 1];
  });
  return new Html(out);
}

export interface PageOptions {
  /** The content origin, when the page embeds uploaded images, PDFs or sandboxed HTML/SVG from it. */
  contentOrigin?: string;
  /** Wider layout (viewer and owner's pages). */
  wide?: boolean;
  /** The top bar (src/web/nav.ts); the brand alone when absent. */
  nav?: Html;
  /** Replaces the way back of an error page. */
  back?: Html;
  /** A first-party script of src/web/assets.ts (the CSP then allows `script-src 'self'`, else `'none'`). */
  script?: string;
  /**
   * A CSP source the page's forms may also end up at: Chromium applies `form-action` to the redirect that answers a
   * form post, so a form whose answer leaves for another origin names it here (the OAuth consent's redirect URI).
   */
  formAction?: string;
}

export function sendPage(res: Response, title: string, body: Html, status = 200, opts: PageOptions = {}): void {
  const nonce = randomBytes(16).toString('base64');
  const content = opts.contentOrigin ? ` ${opts.contentOrigin}` : '';
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; script-src ${opts.script ? "'self'" : "'none'"}; style-src 'nonce-${nonce}'; img-src 'self'${content}; frame-src${content || " 'none'"}; ` +
      `form-action 'self'${opts.formAction ? ` ${opts.formAction}` : ''}; frame-ancestors 'none'; base-uri 'none'`,
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  res
    .status(status)
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
        `<title>${esc(title)} · Agent Artifact Drive</title><style nonce="${nonce}">${STYLE}</style>` +
        `${opts.script ? `<script src="${esc(opts.script)}" defer></script>` : ''}</head>` +
        `<body${opts.wide ? ' class="wide"' : ''}>${(opts.nav ?? BARE_BAR).value}<main><h1>${esc(title)}</h1>${body.value}` +
        `${status >= 400 ? (opts.back ?? WAY_BACK).value : ''}</main></body></html>`,
    );
}

const BARE_BAR = new Html(
  `<header class="top"><div class="bar"><a class="brand" href="/">Agent Artifact Drive</a></div></header>`,
);
const WAY_BACK = new Html(`<p data-testid="way-back"><a href="/">Back to the start page</a></p>`);

/** A hidden CSRF field for a form. */
export const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}" />`;

/** A timestamp as pages show it: `2026-11-23 04:48` (UTC). */
export const shortTime = (t: Timestamp | null | undefined) => (iso(t ?? null) ?? '').replace('T', ' ').slice(0, 16);

/** Table rows, or one row across `cols` columns saying why there are none. */
export const rowsOr = (rows: Html[], cols: number, empty: string): Html[] | Html =>
  rows.length
    ? rows
    : html`<tr>
        <td colspan="${cols}" class="muted">${empty}</td>
      </tr>`;

/** A form's CSRF field and hidden inputs (what the form acts on, where it comes back to). */
export const hiddenFields = (csrf: string, fields: Record<string, string>) =>
  html`${csrfField(csrf)}${Object.entries(fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}`;
