import type { Response } from 'express';
import type { FolderSort, FolderView, SubfolderEntry } from '../../files/folder-browse.js';
export { groupListing } from '../../files/folder-browse.js';
import type { ArtifactRow } from '../../records/artifact-records.js';
import { encodePath, humanSize, timeTag } from '../format.js';
import { csrfField, html, Html, sendPage, rowsOr } from '../html.js';
import { fileIcon, icon } from '../icons.js';
import { DROP_UPLOAD_PATH } from '../assets.js';
import { kindLabel } from '../kind.js';
import { downloadName } from '../../files/file-names.js';

/** The name a person gave the file, beside its path, while it still describes it (as the file page's "uploaded as"). */
const keptName = (a: ArtifactRow) => {
  const name = downloadName(a.path, a.filename);
  return name === a.path.slice(a.path.lastIndexOf('/') + 1)
    ? ''
    : html`<span class="muted" data-testid="kept-name">uploaded as “${name}”</span>`;
};

/**
 * A folder's page: breadcrumbs, its subfolders (explicit or implied by paths) and files with sizes and dates, sortable
 * by name, size or date; for the owner, upload, new folder, share, and per item rename, move, copy and delete (forms,
 * CSRF-checked, so everything works with scripts off).
 */
export interface FolderPage {
  title: string;
  /** URL of the folder (ending in `/`), for links to its children. */
  base: string;
  /** The folder's path in the drive + `/` ('' at the root): child names are paths minus this. */
  prefix: string;
  folders: SubfolderEntry[];
  files: ArtifactRow[];
  marks: Record<string, 'public' | 'shared'>;
  nav: Html;
  crumbs?: Html;
  /** The owner's tools (absent for visitors and share links). */
  owner?: { csrf: string; back: string; folderPath: string; folderId: string | null; share?: Html; notice?: Html };
  sort?: FolderSort;
  truncated?: boolean;
}

export function badge(mark: 'public' | 'shared' | undefined, visibility?: string): Html | '' {
  const m = visibility === 'public' ? 'public' : mark;
  if (m === 'public') return html`<span class="badge public" data-testid="mark-public">${icon('globe')} Public</span>`;
  if (m === 'shared') return html`<span class="badge shared" data-testid="mark-shared">${icon('users')} Shared</span>`;
  return '';
}

/**
 * Crumbs from the drive root to the folder holding `path`. For the owner every step is a link; a visitor (a grant, a
 * public file) sees the names only, since the folders above what was shared are not theirs to open.
 */
export function crumbsOf(driveBase: string, path: string, rootName: string, linked = true): Html {
  const parts = path ? path.split('/') : [];
  const step = (name: string, href: string) =>
    linked ? html`<a href="${href}">${name}</a>` : html`<span>${name}</span>`;
  const links = parts.map(
    (p, i) =>
      html`<span aria-hidden="true">/</span>${step(p, `${driveBase}${encodePath(parts.slice(0, i + 1).join('/'))}/`)}`,
  );
  return html`<nav class="crumbs" aria-label="Breadcrumbs" data-testid="crumbs">
    ${step(rootName, driveBase)}${links}
  </nav>`;
}

/** Rename, move, copy and delete of one item; `extra` adds hidden fields (the file page follows the item). */
export function itemActions(
  o: { csrf: string; back: string; folderPath: string },
  ref: string,
  name: string,
  isFolder: boolean,
  extra: Html | '' = '',
  fileUrl?: string,
): Html {
  const hidden = html`${csrfField(o.csrf)}<input type="hidden" name="ref" value="${ref}" /><input
      type="hidden"
      name="back"
      value="${o.back}"
    />${extra}`;
  const here = o.folderPath;
  return html`<details class="actions">
    <summary aria-label="Actions for ${name}">${icon('more')}</summary>
    <div class="panel">
      ${fileUrl ? html`<p><a class="button" href="${fileUrl}?download=1">${icon('download')} Download</a></p>` : ''}
      <form method="post" action="/files/move" class="row">
        ${hidden}<input type="hidden" name="folder" value="${here}" />
        <label>Rename to <input type="text" name="name" value="${name}" required /></label>
        <button type="submit">Rename</button>
      </form>
      <form method="post" action="/files/move" class="row">
        ${hidden}<input type="hidden" name="name" value="${name}" />
        <label>Move to folder <input type="text" name="folder" value="${here}" placeholder="(top level)" /></label>
        <button type="submit">Move</button>
      </form>
      ${
        isFolder
          ? ''
          : html`<form method="post" action="/files/copy" class="row">
              ${hidden}
              <label
                >Copy to <input type="text" name="to" value="${here ? `${here}/` : ''}copy-of-${name}" required
              /></label>
              <button type="submit">Copy</button>
            </form>`
      }
      <form method="post" action="/files/delete">
        ${hidden}<button type="submit" class="danger">
          ${icon('trash')} Delete${isFolder ? ' folder and contents' : ''}
        </button>
      </form>
    </div>
  </details>`;
}

function toolbar(o: NonNullable<FolderPage['owner']>): Html {
  const hidden = html`${csrfField(o.csrf)}<input type="hidden" name="folder" value="${o.folderPath}" /><input
      type="hidden"
      name="back"
      value="${o.back}"
    />`;
  return html`<div class="toolbar">
    <details>
      <summary>${icon('upload')} Upload</summary>
      <div class="panel">
        <form method="post" action="/files/upload" enctype="multipart/form-data" data-drop-upload>
          ${hidden}
          <label>Files <input type="file" name="files" multiple required /></label>
          <button type="submit" class="primary">Upload</button>
        </form>
        <p class="muted">Uploading a file with the name of an existing one adds a new version of it.</p>
        <p class="muted" data-drop-hint hidden>You can also drop files anywhere on this page.</p>
      </div>
    </details>
    <details>
      <summary>${icon('plus')} New folder</summary>
      <div class="panel">
        <form method="post" action="/files/new-folder" class="row">
          ${hidden}<label>Name <input type="text" name="name" required /></label>
          <button type="submit" class="primary">Create</button>
        </form>
      </div>
    </details>
    ${o.share ?? ''}
  </div>`;
}

const sortLink = (base: string, sort: FolderSort, current: FolderSort, label: string) =>
  sort === current
    ? html`<strong aria-current="true">${label}</strong>`
    : html`<a href="${base}?sort=${sort}">${label}</a>`;

export function sendFolderPage(res: Response, p: FolderPage, status = 200): void {
  const sort = p.sort ?? 'name';
  const o = p.owner;
  // Columns: name, kind (a folder's file count), size, updated, actions; each value in its own column.
  const rows = [
    ...p.folders.map((f) => {
      const name = f.name;
      return html`<tr>
        <td class="name">
          <a href="${p.base}${encodeURIComponent(name)}/">${icon('folder', 'folder-icon')}${name}</a>${badge(
            f.id ? p.marks[f.id] : undefined,
          )}
        </td>
        <td class="hide-narrow">Folder · ${f.files ? `${f.files} file${f.files === 1 ? '' : 's'}` : 'empty'}</td>
        <td class="num">${f.files ? humanSize(f.bytes) : '—'}</td>
        <td class="hide-narrow">${f.updatedAt ? timeTag(f.updatedAt) : ''}</td>
        ${o ? html`<td>${itemActions(o, f.id ?? f.path, name, true)}</td>` : ''}
      </tr>`;
    }),
    ...p.files.map((a) => {
      const name = a.path.slice(p.prefix.length);
      return html`<tr>
        <td class="name">
          <a href="${p.base}${encodePath(name)}">${fileIcon(a.content_type, a.path)}${name}</a>${badge(
            p.marks[a.id],
            a.visibility,
          )}
          ${keptName(a)} ${a.version_number > 1 ? html`<span class="muted">v${a.version_number}</span>` : ''}
        </td>
        <td class="hide-narrow" title="${a.content_type}">${kindLabel(a.content_type, a.path)}</td>
        <td class="num">${humanSize(a.size_bytes)}</td>
        <td class="hide-narrow">${timeTag(a.updated_at)}</td>
        ${o ? html`<td>${itemActions(o, a.id, name, false, '', `${p.base}${encodePath(name)}`)}</td>` : ''}
      </tr>`;
    }),
  ];
  const cols = o ? 5 : 4;
  sendPage(
    res,
    p.title,
    html`${p.crumbs ?? ''} ${o?.notice ?? ''} ${o ? toolbar(o) : ''}
      <p class="muted">
        Sort by ${sortLink(p.base, 'name', sort, 'name')} · ${sortLink(p.base, 'size', sort, 'size')} ·
        ${sortLink(p.base, 'date', sort, 'date')}
      </p>
      <div class="scroll">
        <table class="files listing" data-testid="folder-listing">
          <colgroup>
            <col />
            <col class="c-kind hide-narrow" />
            <col class="c-size" />
            <col class="c-date hide-narrow" />
            ${o ? html`<col class="c-act" />` : ''}
          </colgroup>
          <thead>
            <tr>
              <th>Name</th>
              <th class="hide-narrow">Kind</th>
              <th class="num">Size</th>
              <th class="hide-narrow">Updated</th>
              ${o ? html`<th><span class="visually-hidden">Actions</span></th>` : ''}
            </tr>
          </thead>
          <tbody>
            ${rowsOr(rows, cols, 'This folder is empty.')}
          </tbody>
        </table>
      </div>
      ${p.truncated ? html`<p class="muted">Showing the first files only; search to find the rest.</p>` : ''}`,
    status,
    { wide: true, nav: p.nav, script: o ? DROP_UPLOAD_PATH : undefined },
  );
}

/** A folder view's rows as the page shows them. */
export const fromView = (v: FolderView) => ({ folders: v.folders, files: v.files, marks: v.marks });
