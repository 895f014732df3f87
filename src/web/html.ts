import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import { iso, type Timestamp } from '../lib/time.js';

/**
 * Server-rendered pages: plain strings, every interpolated value escaped with `esc`, no external
 * assets, and a strict CSP (only our own nonce'd inline style; no scripts at all).
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

const STYLE = `
:root{--fg:#1b1b1b;--muted:#666;--line:#e2e2e2;--accent:#2453a6;--bg2:#f6f7f9}
body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:var(--fg)}
body.wide{max-width:64rem;margin-top:1.5rem}
h1{font-size:1.5rem;word-break:break-word}h2{font-size:1.2rem;margin-top:2rem}form{margin:1rem 0}label{display:block;margin:.5rem 0}
a{color:var(--accent)}nav.top{display:flex;gap:1rem;flex-wrap:wrap;padding-bottom:.5rem;border-bottom:1px solid var(--line);font-size:.95rem}
input[type=email],input[type=password],input[type=text],select{padding:.4rem;font:inherit;box-sizing:border-box}
input[type=email],input[type=password],input[type=text]{width:100%}
button,.button{font:inherit;padding:.4rem .9rem;margin-right:.5rem;cursor:pointer;border:1px solid #bbb;border-radius:4px;background:#fff;color:var(--fg);text-decoration:none;display:inline-block}
button.danger{border-color:#a00;color:#a00}form.inline{display:inline;margin:0}form.inline label{display:inline}
.code{font:700 2rem/1.2 ui-monospace,monospace;letter-spacing:.2em}.error{color:#a00}.ok{color:#060}.muted{color:var(--muted);font-size:.9rem}
.secret{font-family:ui-monospace,monospace;word-break:break-all;background:#f3f3f3;padding:.5rem}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
.meta{display:flex;gap:1rem;flex-wrap:wrap;align-items:center;color:var(--muted);font-size:.9rem;margin:.5rem 0 1rem}
.card{border:1px solid var(--line);border-radius:6px;padding:1rem;background:var(--bg2)}
.doc{border-top:1px solid var(--line);padding-top:1rem}.doc img{max-width:100%}.doc pre{background:var(--bg2);padding:.75rem;overflow:auto}
.doc table{margin:1rem 0}.doc blockquote{border-left:3px solid var(--line);margin-left:0;padding-left:1rem;color:var(--muted)}
.src{display:flex;overflow:auto;border:1px solid var(--line);border-radius:4px;background:#fbfbfb}
.src pre{margin:0;padding:.5rem .75rem;font:13px/1.5 ui-monospace,monospace}.src pre.ln{color:#999;text-align:right;user-select:none;border-right:1px solid var(--line);background:var(--bg2)}
pre.text{white-space:pre-wrap;font:13px/1.5 ui-monospace,monospace;background:#fbfbfb;border:1px solid var(--line);padding:.75rem}
iframe.content{width:100%;height:75vh;border:1px solid var(--line);border-radius:4px;background:#fff}img.content{max-width:100%;border:1px solid var(--line)}
.hljs-keyword,.hljs-built_in,.hljs-selector-tag{color:#a626a4}.hljs-string,.hljs-attr,.hljs-regexp{color:#50a14f}.hljs-number,.hljs-literal{color:#986801}
.hljs-comment,.hljs-quote{color:#a0a1a7;font-style:italic}.hljs-title,.hljs-function,.hljs-section{color:#4078f2}.hljs-type,.hljs-class{color:#c18401}
.hljs-meta,.hljs-variable,.hljs-template-variable{color:#e45649}.hljs-name,.hljs-tag{color:#e45649}`;

export interface PageOptions {
  /** The content origin, when the page embeds uploaded images, PDFs or sandboxed HTML/SVG from it. */
  contentOrigin?: string;
  /** Wider layout and a navigation bar above the title (viewer and owner's pages). */
  wide?: boolean;
  nav?: Html;
}

export function sendPage(res: Response, title: string, body: Html, status = 200, opts: PageOptions = {}): void {
  const nonce = randomBytes(16).toString('base64');
  const content = opts.contentOrigin ? ` ${opts.contentOrigin}` : '';
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; script-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'${content}; frame-src${content || " 'none'"}; ` +
      `form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
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
        `<title>${esc(title)} · Agent Artifact Drive</title><style nonce="${nonce}">${STYLE}</style></head>` +
        `<body${opts.wide ? ' class="wide"' : ''}>${opts.nav?.value ?? ''}<h1>${esc(title)}</h1>${body.value}</body></html>`,
    );
}

/** A hidden CSRF field for a form. */
export const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}" />`;

/** A timestamp as pages show it: `2026-11-23 04:48` (UTC). */
export const shortTime = (t: Timestamp | null | undefined) => (iso(t ?? null) ?? '').replace('T', ' ').slice(0, 16);
