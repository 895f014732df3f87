import hljs from 'highlight.js';
import { Marked } from 'marked';
import Papa from 'papaparse';
import sanitizeHtml from 'sanitize-html';
import { esc, html, Html } from '../html.js';

/**
 * Rendering an artifact's bytes by type, with well-kept libraries (docs/decisions.md → Viewer):
 * markdown with `marked` (GitHub-flavoured) then `sanitize-html`; code and JSON with `highlight.js`
 * and a line-number gutter; CSV/TSV with `papaparse`, capped; images, PDFs and HTML/SVG only from
 * the content origin (HTML/SVG in a sandboxed frame); anything else a card with a download button.
 */
export const RENDER_MAX_BYTES = 2 * 1024 * 1024;
export const TABLE_MAX_ROWS = 1000;

export type Kind = 'markdown' | 'code' | 'json' | 'table' | 'image' | 'pdf' | 'sandboxed' | 'text' | 'binary';

const extOf = (path: string) => {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
};
const mime = (contentType: string) => contentType.split(';')[0].trim().toLowerCase();

/** Text types are shown as text and served by `?raw=1` as text/plain, never as active content. */
export function isTextType(contentType: string): boolean {
  const t = mime(contentType);
  return (
    t.startsWith('text/') ||
    /^application\/(json|xml|javascript|ecmascript|x-sh|x-yaml|yaml|toml|sql|x-httpd-php|xhtml\+xml|[\w.-]+\+(json|xml))$/.test(
      t,
    ) ||
    t === 'image/svg+xml'
  );
}

const NOT_CODE = new Set(['md', 'markdown', 'txt', 'text', 'csv', 'tsv', 'json', 'html', 'htm', 'svg', 'pdf', 'log']);

export function kindOf(contentType: string, path: string): Kind {
  const t = mime(contentType);
  const ext = extOf(path);
  if (
    t === 'text/html' ||
    t === 'application/xhtml+xml' ||
    t === 'image/svg+xml' ||
    ext === 'html' ||
    ext === 'htm' ||
    ext === 'svg'
  )
    return 'sandboxed';
  if (t === 'application/pdf') return 'pdf';
  if (t.startsWith('image/')) return 'image';
  if (t === 'text/markdown' || t === 'text/x-markdown' || ext === 'md' || ext === 'markdown') return 'markdown';
  if (t === 'text/csv' || t === 'text/tab-separated-values' || ext === 'csv' || ext === 'tsv') return 'table';
  if (t === 'application/json' || t.endsWith('+json') || ext === 'json') return 'json';
  if (ext && !NOT_CODE.has(ext) && hljs.getLanguage(ext) && (isTextType(t) || t === 'application/octet-stream'))
    return 'code';
  if (isTextType(t)) return 'text';
  return 'binary';
}

/** Fenced code highlighted by highlight.js when its language is named and known (as GitHub does). */
const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }) {
      const language = (lang ?? '').trim().split(/\s+/)[0].toLowerCase();
      const body =
        language && hljs.getLanguage(language)
          ? hljs.highlight(text, { language, ignoreIllegals: true }).value
          : html`${text}`.value;
      return `<pre><code class="hljs${language ? ` language-${esc(language)}` : ''}">${body}</code></pre>\n`;
    },
  },
});

/** A relative image of a markdown file as the drive's raw bytes, resolved against the file's folder URL. */
function resolveImage(src: string, folderUrl: string | undefined): string {
  if (!folderUrl || !src || /^[a-z][a-z0-9+.-]*:/i.test(src) || src.startsWith('//') || src.startsWith('#')) return src;
  const driveRoot = folderUrl.split('/').slice(0, 2).join('/') + '/';
  const url = new URL(src.startsWith('/') ? `${driveRoot}${src.slice(1)}` : src, `http://drive${folderUrl}`);
  return url.pathname.startsWith(driveRoot) ? `${url.pathname}?raw=1` : src;
}

const ALIGN = new Set(['left', 'center', 'right']);
const aligned = (tagName: string, attribs: Record<string, string>) => {
  const { align, ...rest } = attribs;
  return { tagName, attribs: ALIGN.has(align) ? { ...rest, class: `al-${align}` } : rest };
};

/**
 * GitHub-flavoured markdown, sanitized: no scripts, handlers, styles, frames or forms; links only http(s)/mailto;
 * images only relative (resolved inside the drive) or https; table alignment kept as classes; fenced code highlighted.
 */
export function renderMarkdown(source: string, folderUrl?: string): Html {
  const raw = marked.parse(source, { async: false });
  const clean = sanitizeHtml(raw, {
    allowedTags: [
      ...sanitizeHtml.defaults.allowedTags,
      'img',
      'del',
      'input',
      'details',
      'summary',
      'sup',
      'sub',
      'span',
    ],
    allowedAttributes: {
      a: ['href', 'title'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      input: ['type', 'checked', 'disabled'],
      ol: ['start'],
    },
    allowedClasses: { code: ['hljs', 'language-*'], span: ['hljs-*'], th: ['al-*'], td: ['al-*'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['https'] },
    allowProtocolRelative: false,
    exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs.type !== 'checkbox',
    transformTags: {
      a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener noreferrer' }),
      th: aligned,
      td: aligned,
      img: (tagName, attribs) => ({
        tagName,
        attribs: { ...attribs, src: resolveImage(attribs.src ?? '', folderUrl) },
      }),
    },
  });
  return new Html(`<article class="doc markdown">${clean}</article>`);
}

/** Source with syntax highlighting and a line-number gutter (two aligned `<pre>`s: no markup split across lines). */
export function renderCode(source: string, language?: string): Html {
  const lines = source.endsWith('\n') ? source.slice(0, -1).split('\n') : source.split('\n');
  const highlighted =
    language && hljs.getLanguage(language)
      ? hljs.highlight(source, { language, ignoreIllegals: true }).value
      : html`${source}`.value;
  const numbers = lines.map((_, i) => String(i + 1)).join('\n');
  return new Html(
    `<div class="src" data-testid="code"><pre class="ln" aria-hidden="true">${numbers}</pre><pre><code class="hljs">${highlighted}</code></pre></div>`,
  );
}

export function renderJson(source: string): Html {
  try {
    return renderCode(JSON.stringify(JSON.parse(source), null, 2), 'json');
  } catch {
    return renderText(source);
  }
}

export function renderText(source: string): Html {
  return html`<pre class="text">${source}</pre>`;
}

/** CSV or TSV as a table: the first row is the header; at most TABLE_MAX_ROWS rows are shown. */
export function renderTable(source: string, path: string, contentType: string): Html {
  const tsv = extOf(path) === 'tsv' || mime(contentType) === 'text/tab-separated-values';
  const parsed = Papa.parse<string[]>(source, {
    delimiter: tsv ? '\t' : '',
    skipEmptyLines: 'greedy',
    preview: TABLE_MAX_ROWS + 2,
  });
  const [head = [], ...body] = parsed.data;
  const shown = body.slice(0, TABLE_MAX_ROWS);
  const note =
    body.length > TABLE_MAX_ROWS
      ? html`<p class="muted">Showing the first ${TABLE_MAX_ROWS} rows. Download the file for the rest.</p>`
      : '';
  return html`<div class="doc">
    <table data-testid="csv-table">
      <thead>
        <tr>
          ${head.map((c) => html`<th>${c}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${shown.map(
          (r) =>
            html`<tr>
              ${r.map((c) => html`<td>${c}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
    ${note}
  </div>`;
}

/** The language highlight.js knows a file by (its extension), for code view. */
export const languageOf = (path: string) => extOf(path);
