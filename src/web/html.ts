import { randomBytes } from 'node:crypto';
import type { Response } from 'express';

/**
 * Server-rendered pages: plain strings, every interpolated value escaped with `esc`, no external
 * assets, and a strict CSP (only our own nonce'd inline style; no scripts at all).
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(value: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- callers pass scalars; an object shows as text, escaped
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
    const rendered = Array.isArray(v) ? v.map((x) => (x instanceof Html ? x.value : esc(x))).join('') : v instanceof Html ? v.value : esc(v);
    out += rendered + strings[i + 1];
  });
  return new Html(out);
}

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.5rem}form{margin:1rem 0}label{display:block;margin:.5rem 0}
input[type=email],input[type=password],input[type=text]{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{font:inherit;padding:.5rem 1rem;margin-right:.5rem;cursor:pointer}
.code{font:700 2rem/1.2 ui-monospace,monospace;letter-spacing:.2em}.error{color:#a00}.ok{color:#060}
.secret{font-family:ui-monospace,monospace;word-break:break-all;background:#f3f3f3;padding:.5rem}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #ddd}`;

export function sendPage(res: Response, title: string, body: Html, status = 200): void {
  const nonce = randomBytes(16).toString('base64');
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  res.status(status).type('html').send(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
      `<title>${esc(title)} · Agent Artifact Drive</title><style nonce="${nonce}">${STYLE}</style></head>` +
      `<body><h1>${esc(title)}</h1>${body.value}</body></html>`,
  );
}

/** A hidden CSRF field for a form. */
export const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;
