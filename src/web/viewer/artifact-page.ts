import type { Readable } from 'node:stream';
import type { Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import type { ArtifactRow } from '../../records/artifact-records.js';
import { blobName, readContent, type BlobRef } from '../../files/content.js';
import type { VersionRow } from '../../files/versions.js';
import { contentDisposition } from '../../lib/content-disposition.js';
import { mintContentLink } from '../../sharing/content-links.js';
import { humanSize, timeTag } from '../format.js';
import { html, Html, sendPage, shortTime } from '../html.js';
import { icon } from '../icons.js';
import { kindLabel } from '../kind.js';
import { readsAsUnits } from '../../lib/extract.js';
import { cachedDocumentUnits } from '../../lib/documents/unit-cache.js';
import { anchorFragment, anchorLabel } from '../../lib/documents/units.js';
import { DROP_UPLOAD_PATH } from '../assets.js';
import type { Timestamp } from '../../lib/time.js';
import {
  isTextType,
  kindOf,
  languageOf,
  RENDER_MAX_BYTES,
  renderCode,
  renderJson,
  renderMarkdown,
  renderTable,
  renderText,
} from './render.js';

/** One artifact's page: header, version selector, raw/download links and the body rendered by type. */
export interface ArtifactView {
  artifact: ArtifactRow;
  blob: BlobRef;
  /** The page's own URL without query (path view or share link), for raw/download/version links. */
  selfUrl: string;
  /** Versions newest first, when the visitor may choose one (not through a share link). */
  versions?: VersionRow[];
  nav: Html;
  /** Breadcrumbs above the title. */
  crumbs?: Html;
  /** The owner's tools (share, history, rename, move, copy, delete) below the details, given the download links. */
  tools?: (downloads: Html) => Html;
  /** The public/shared mark next to the details. */
  badge?: Html | '';
  /** The URL of the file's folder in the drive: relative images in markdown resolve against it (owner and grantees). */
  folderUrl?: string;
  /** A PDF opens at this page (`?page=` from a find hit). */
  page?: number;
}

export async function bytesOf(app: AppContext, blob: BlobRef): Promise<Buffer> {
  const got = await readContent(app, blob);
  if (Buffer.isBuffer(got)) return got;
  const chunks: Buffer[] = [];
  for await (const chunk of got as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const fileName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/**
 * `?raw=1` and `?download=1` on the app origin: the stored bytes, never active content. Text types
 * (HTML and SVG included) go out as text/plain; everything carries nosniff and a sandbox CSP, and
 * a download is an attachment.
 */
/**
 * Types (other than the text ones, served as text/plain) a browser would run when this origin's own page names
 * them (a script src satisfies `script-src 'self'`, a frame of HTML or SVG runs in this origin): never served as
 * themselves from here, only as a download of bytes
 * (issue 37). HTML and SVG are shown from the sandboxed content origin instead.
 */
const EXECUTABLE_TYPE = /script|html|svg|xml|wasm|x-shockwave|java-archive|x-java|manifest|text\/css/i;

export async function sendRaw(app: AppContext, res: Response, blob: BlobRef, download: boolean): Promise<void> {
  // Text is served as text/plain (with nosniff no browser runs it); anything else that would run goes as bytes.
  const text = isTextType(blob.contentType);
  const executable = !text && EXECUTABLE_TYPE.test(blob.contentType);
  if (executable) download = true;
  res.setHeader(
    'Content-Type',
    text ? 'text/plain; charset=utf-8' : executable ? 'application/octet-stream' : blob.contentType,
  );
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "sandbox; default-src 'none'; frame-ancestors 'none'");
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'private, no-store');
  res.setHeader('ETag', `"${blob.hash}"`);
  res.setHeader('Content-Disposition', contentDisposition(download ? 'attachment' : 'inline', blobName(blob)));
  res.setHeader('Content-Length', String(blob.size));
  const got = await readContent(app, blob);
  if (Buffer.isBuffer(got)) res.end(got);
  else (got as Readable).pipe(res);
}

const when = (t: Timestamp) => `${shortTime(t)} UTC`;

async function body(app: AppContext, v: ArtifactView, versionQuery: string): Promise<Html> {
  const { blob } = v;
  const kind = kindOf(blob.contentType, blob.path);
  const contentUrl = () =>
    `${app.config.http.contentUrl}/c/${mintContentLink(app, blob)}/${encodeURIComponent(fileName(blob.path))}`;
  const downloadHref = `${v.selfUrl}?${versionQuery}download=1`;
  const card = (why: string) =>
    html`<div class="card" data-testid="file-card">
      <p><strong>${fileName(blob.path)}</strong></p>
      <p class="muted">${blob.contentType} · ${humanSize(blob.size)} · version ${blob.versionNumber}</p>
      <p class="muted">${why}</p>
      <a class="button" href="${downloadHref}">Download</a>
    </div>`;
  // Office, OpenDocument, EPUB and RTF show their extracted text, one section per unit, each with the id a find
  // hit's link names (HTML pages still render themselves in the sandbox).
  if (kind !== 'sandboxed' && kind !== 'pdf' && readsAsUnits(blob.contentType, blob.path)) {
    if (blob.size > RENDER_MAX_BYTES) return card(`Too large to preview (over ${humanSize(RENDER_MAX_BYTES)}).`);
    const units = await cachedDocumentUnits(blob, () => bytesOf(app, blob));
    if (units.length)
      return html`<div data-testid="document-units">
        ${units.map(
          (u) =>
            html`<section class="unit" id="${anchorFragment(u.anchor)}">
              <h2 class="muted">${anchorLabel(u.anchor)}</h2>
              ${renderMarkdown(u.text, v.folderUrl)}
            </section>`,
        )}
      </div>`;
  }
  switch (kind) {
    case 'image':
      return html`<img class="content" alt="${fileName(blob.path)}" src="${contentUrl()}" />`;
    case 'pdf':
      return html`<iframe
        class="content"
        title="${fileName(blob.path)}"
        src="${contentUrl()}${v.page ? `#page=${v.page}` : ''}"
      ></iframe>`;
    case 'sandboxed':
      // HTML and SVG run only on the content origin, in a frame with an opaque origin (docs/decisions.md → Viewer).
      return html`<iframe
        class="content"
        data-testid="sandboxed-frame"
        sandbox="allow-scripts"
        referrerpolicy="no-referrer"
        title="${fileName(blob.path)}"
        src="${contentUrl()}"
      ></iframe>`;
    case 'binary':
      return card('No preview for this type.');
    default:
      break;
  }
  if (blob.size > RENDER_MAX_BYTES) return card(`Too large to preview (over ${humanSize(RENDER_MAX_BYTES)}).`);
  const text = (await bytesOf(app, blob)).toString('utf8');
  if (kind === 'markdown') return renderMarkdown(text, v.folderUrl);
  if (kind === 'json') return renderJson(text);
  if (kind === 'table') return renderTable(text, blob.path, blob.contentType);
  if (kind === 'code') return renderCode(text, languageOf(blob.path));
  return renderText(text);
}

export async function sendArtifactPage(app: AppContext, res: Response, v: ArtifactView): Promise<void> {
  const { artifact, blob } = v;
  const isHead = blob.versionNumber === artifact.version_number;
  const versionQuery = isHead ? '' : `v=${blob.versionNumber}&`;
  const selector =
    v.versions && v.versions.length > 1
      ? html`<form class="inline" method="get" action="${v.selfUrl}">
          <label
            >Version
            <select name="v" data-testid="version-select">
              ${v.versions.map((ver) => {
                const label = `v${ver.version_number} · ${when(ver.created_at)}${ver.version_number === artifact.version_number ? ' (current)' : ''}`;
                const selected = new Html(ver.version_number === blob.versionNumber ? ' selected' : '');
                return html`<option value="${ver.version_number}" ${selected}>${label}</option>`;
              })}
            </select></label
          >
          <button type="submit">Show</button>
        </form>`
      : '';
  const meta = html`<div class="meta">
    ${v.badge ?? ''}<span title="${blob.contentType}" data-testid="kind">${kindLabel(blob.contentType, blob.path)}</span
    ><span>${humanSize(blob.size)}</span>
    <span data-testid="version"
      >version ${blob.versionNumber}${isHead ? '' : html` of ${artifact.version_number} (an older version)`}</span
    >
    <span>updated ${timeTag(artifact.updated_at)}</span>
    ${
      blobName(blob) !== fileName(blob.path)
        ? html`<span data-testid="original-name">uploaded as “${blobName(blob)}”</span>`
        : ''
    }
    ${selector}
  </div>`;
  // Download sits with the other actions: the owner's toolbar, or a row of its own for everyone else.
  const downloads = html`<a class="button" href="${v.selfUrl}?${versionQuery}download=1" data-testid="download"
      >${icon('download')} Download</a
    ><a class="button" href="${v.selfUrl}?${versionQuery}raw=1">Raw</a>`;
  const actions = v.tools ? v.tools(downloads) : html`<div class="toolbar">${downloads}</div>`;
  sendPage(
    res,
    fileName(artifact.path),
    html`${v.crumbs ?? ''}${meta}${actions}${await body(app, v, versionQuery)}`,
    200,
    {
      wide: true,
      nav: v.nav,
      contentOrigin: app.config.http.contentUrl,
      // The owner's page script: its Copy buttons (a new share link).
      script: v.tools ? DROP_UPLOAD_PATH : undefined,
    },
  );
}
