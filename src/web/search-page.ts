import { Router } from 'express';
import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { searchAndFind } from '../search/search-page.js';
import type { SearchService } from '../search/service.js';
import { encodePath, timeTag } from './format.js';
import { esc, html, Html } from './html.js';
import { fileIcon, icon } from './icons.js';
import { ownerOf, ownerPage } from './owner/owner-request.js';

/**
 * `/search?q=`: the search box of every owner page. Files that match (as `/v0/search`) with the matched words marked,
 * and the best passages (as `/v0/find`), each linked to its file; a passage's link carries a text fragment
 * (`#:~:text=`), so the browser scrolls to the matched text and highlights it.
 */
const SNIPPET_MAX = 400;

/** The engine's snippet (text with `<mark>` around matches) as safe HTML: everything escaped but the marks. */
export function markedSnippet(snippet: string): Html {
  return new Html(
    esc(snippet.slice(0, SNIPPET_MAX))
      .replace(/&lt;mark&gt;/g, '<mark>')
      .replace(/&lt;\/mark&gt;/g, '</mark>'),
  );
}

/** A text fragment for the first marked words of a snippet (else its first words). */
function textFragment(snippet: string, text: string): string {
  const marked = /<mark>([^<]{1,80})<\/mark>/.exec(snippet)?.[1];
  const words = (marked ?? text.trim().split(/\s+/).slice(0, 6).join(' ')).trim();
  return words ? `#:~:text=${encodeURIComponent(words).replace(/-/g, '%2D')}` : '';
}

export function searchPageRouter(ctx: AppContext, search: SearchService): Router {
  const router = Router();
  router.get('/search', async (req, res) => {
    const o = ownerOf(ctx, req, res);
    if (!o) return;
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 200) : '';
    if (!q) return ownerPage(ctx, req, res, 'Search', html`<p>Type words in the search box above.</p>`);
    let found;
    try {
      found = await searchAndFind(o.rc, search, q);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return ownerPage(ctx, req, res, 'Search', html`<p class="error">${err.message}</p>`, err.status);
    }
    const drv = o.session.drv;
    const files = found.files.map(
      (h) =>
        html`<div class="hit">
          <p>
            <a href="/${drv}/${encodePath(h.path)}">${fileIcon(h.contentType, h.path)} ${h.path}</a>
            <span class="muted">· v${h.versionNumber} · ${timeTag(h.updatedAt)}</span>
          </p>
          ${h.snippet ? html`<p class="muted">${markedSnippet(h.snippet)}</p>` : ''}
        </div>`,
    );
    const passages = found.passages.map(
      (h) =>
        html`<div class="hit">
          <p>
            <a href="/${drv}/${encodePath(h.path)}${textFragment(h.snippet, h.text)}">${h.path}</a>
            <span class="muted">· passage ${h.ord + 1}</span>
          </p>
          <p>${markedSnippet(h.snippet || h.text)}</p>
        </div>`,
    );
    ownerPage(
      ctx,
      req,
      res,
      `Results for “${q}”`,
      html`<section data-testid="search-files" aria-labelledby="files-h">
          <h2 id="files-h">${icon('search')} Files (${files.length})</h2>
          ${files.length ? files : html`<p class="muted">No file matches these words.</p>`}
        </section>
        <section data-testid="search-passages" aria-labelledby="passages-h">
          <h2 id="passages-h">Passages</h2>
          ${passages.length ? passages : html`<p class="muted">No passage matches.</p>`}
        </section>`,
    );
  });
  return router;
}
