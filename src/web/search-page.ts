import { searchAndFind } from '../search/search-page.js';
import type { SearchService } from '../search/service.js';
import { anchorFragment, type Anchor } from '../lib/documents/units.js';
import { encodePath, timeTag } from './format.js';
import { esc, html, Html } from './html.js';
import { fileIcon, icon } from './icons.js';
import { show } from './kit/call.js';
import { page, type Declaration } from './kit/declare.js';

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

/**
 * Where a passage link opens its file: a PDF at its page (`?page=3`, the viewer passes it to the PDF frame), a
 * document at its unit's section (`#slide-2`, `#sheet-Budget`), anything else at its words (a text fragment).
 */
export function hitLocation(h: { anchor?: Anchor; pageStart?: number; snippet: string; text: string }): string {
  if (h.pageStart !== undefined) return `?page=${h.pageStart}`;
  if (h.anchor) return `#${anchorFragment(h.anchor)}`;
  return textFragment(h.snippet, h.text);
}

export const searchPages = (search: SearchService): Declaration[] => [
  page({ path: '/search', who: 'owner', refusalTitle: 'Search' }, async (c) => {
    const q = c.query('q').trim().slice(0, 200);
    if (!q) return show('Search', html`<p>Type words in the search box above.</p>`);
    const found = await searchAndFind(c.rc, search, q);
    const drv = c.session.drv;
    // One entry per file: the file hit (or, found only by its passages, the file of those passages) with its
    // passages under it, in the order the files ranked, then files found by passages alone.
    const byPath = new Map<string, { file?: (typeof found.files)[number]; passages: typeof found.passages }>();
    for (const f of found.files) byPath.set(f.path, { file: f, passages: [] });
    for (const h of found.passages) {
      const entry = byPath.get(h.path) ?? { passages: [] };
      entry.passages.push(h);
      byPath.set(h.path, entry);
    }
    const entries = [...byPath.entries()].map(
      ([path, { file, passages }]) =>
        html`<li class="hit" data-testid="search-hit">
          <p>
            <a href="/${drv}/${encodePath(path)}"
              >${file ? fileIcon(file.contentType, path) : fileIcon('', path)} ${path}</a
            >
            ${file ? html`<span class="muted">· v${file.versionNumber} · ${timeTag(file.updatedAt)}</span>` : ''}
          </p>
          ${file?.snippet && !passages.length ? html`<p class="muted">${markedSnippet(file.snippet)}</p>` : ''}
          ${
            passages.length
              ? html`<ul class="passages">
                  ${passages.map(
                    (h) =>
                      html`<li>
                        <a href="/${drv}/${encodePath(h.path)}${hitLocation(h)}"
                          >Passage ${h.ord + 1}</a
                        >: ${markedSnippet(h.snippet || h.text)}
                      </li>`,
                  )}
                </ul>`
              : ''
          }
        </li>`,
    );
    return show(
      `Results for “${q}”`,
      html`<section data-testid="search-files" aria-labelledby="files-h">
        <h2 id="files-h">${icon('search')} ${entries.length} file${entries.length === 1 ? '' : 's'}</h2>
        ${found.semantic.status === 'ok' ? '' : html`<p class="muted" data-testid="search-semantic">${found.semantic.note}</p>`}
        ${entries.length ? html`<ul class="hits">${entries}</ul>` : html`<p class="muted">No file matches these words.</p>`}
      </section>`,
    );
  }),
];
