import type { EventRow } from '../../files/events.js';
import type { FolderSort } from '../../files/folder-browse.js';
import type { VersionRow } from '../../files/versions.js';
import { AppError } from '../../lib/errors.js';
import type { ArtifactRow } from '../../records/artifact-records.js';
import type { SharingState } from '../../sharing/sharing-state.js';
import { activityAt, contentAt, diffAt, historyAt, pathPageRead } from '../../sharing/viewer-reads.js';
import { activityLines } from '../activity.js';
import { encodePath, humanSize, timeTag } from '../format.js';
import { csrfField, hiddenFields, html, rowsOr, type Html } from '../html.js';
import { icon } from '../icons.js';
import { SENT, show, type BaseCall, type VisitorCall } from '../kit/call.js';
import { page, type Declaration } from '../kit/declare.js';
import { flashNotice } from '../owner/notice.js';
import { sharePanel } from '../owner/share-panel.js';
import { sendArtifactPage, sendRaw } from './artifact-page.js';
import { badge, crumbsOf, sendFolderPage, type FolderPage } from './folder-page.js';

/**
 * `/{drive_id}/{path}`: a file (its page, raw, download, history, activity, a diff between versions) or a folder,
 * explicit or implied by paths; the drive root is its owner's Files page. One declaration per view, each selected by
 * its query flag and each one named domain read (src/sharing/viewer-reads.ts), so the one rule decides what a
 * visitor sees; whatever they may not read is the same 404 as what does not exist. The owner's pages carry the tools
 * (upload, new folder, share, rename, move, copy, delete).
 */
const ROUTE = '/:driveId{/*rest}';
const flag = (v: string) => v === '1' || v === 'true';
const versionParam = (v: string) => (/^[1-9]\d{0,8}$/.test(v) ? Number(v) : undefined);
const SORTS: FolderSort[] = ['name', 'size', 'date'];
const isDrivePath = (c: BaseCall) => /^drv_[\w-]+$/.test(String(c.req.params.driveId));

/** The drive and path a viewer URL names (an undecodable path is the not-found page). */
function located(c: BaseCall): { driveId: string; path: string } {
  const driveId = String(c.req.params.driveId);
  try {
    return { driveId, path: decodeURIComponent(c.req.path.slice(driveId.length + 2)) };
  } catch {
    throw new AppError('NOT_FOUND', 'undecodable path');
  }
}

/** What a file's pages are drawn from. */
function fileFrame(c: VisitorCall, a: ArtifactRow) {
  const base = `/${a.drive_id}/`;
  const folder = a.path.includes('/') ? a.path.slice(0, a.path.lastIndexOf('/')) : '';
  const owner = c.rc.principal.driveId === a.drive_id;
  return {
    a,
    selfUrl: `${base}${encodePath(a.path)}`,
    nav: c.nav(),
    crumbs: crumbsOf(base, folder, owner ? 'Files' : 'Drive', owner),
    folder,
    folderUrl: `${base}${folder ? `${encodePath(folder)}/` : ''}`,
  };
}

const viewer = (when: (c: BaseCall) => boolean, variant: string) => ({
  path: ROUTE,
  who: 'visitor' as const,
  refusedAs: 'not_found' as const,
  when: (c: BaseCall) => isDrivePath(c) && when(c),
  variant,
});

export const pathPages: Declaration[] = [
  page(
    viewer((c) => flag(c.query('raw')) || flag(c.query('download')), '?raw=1 | ?download=1'),
    async (c) => {
      const { driveId, path } = located(c);
      const blob = await contentAt(c.rc, driveId, path, versionParam(c.query('v')));
      await sendRaw(c.ctx, c.res, blob, flag(c.query('download')));
      return SENT;
    },
  ),

  page(
    viewer((c) => flag(c.query('history')), '?history=1'),
    async (c) => {
      const { driveId, path } = located(c);
      const h = await historyAt(c.rc, driveId, path);
      return historyPage(c, fileFrame(c, h.artifact), h.versions, h.owner);
    },
  ),

  page(
    viewer((c) => flag(c.query('activity')), '?activity=1'),
    async (c) => {
      const { driveId, path } = located(c);
      const { artifact, events } = await activityAt(c.rc, driveId, path);
      return activityPage(fileFrame(c, artifact), events);
    },
  ),

  page(
    viewer((c) => !!versionParam(c.query('from')) && !!versionParam(c.query('to')), '?from=&to='),
    async (c) => {
      const { driveId, path } = located(c);
      const from = versionParam(c.query('from'))!;
      const { artifact, diff } = await diffAt(c.rc, driveId, path, from, versionParam(c.query('to'))!);
      const f = fileFrame(c, artifact);
      return show(
        `Changes in ${fileName(artifact.path)}`,
        html`${f.crumbs}
        <p class="meta">Version ${diff.from} → version ${diff.to} · <a href="${f.selfUrl}?history=1">All versions</a></p>
        ${diffHtml(diff.diff)}`,
      );
    },
  ),

  page(
    viewer(() => true, ''),
    async (c) => {
      const { driveId, path } = located(c);
      const sort = SORTS.find((s) => s === c.query('sort')) ?? 'name';
      const read = await pathPageRead(c.rc, driveId, path, { sort, version: versionParam(c.query('v')) }).catch(
        (err: unknown) => emptiedFolder(c, driveId, err),
      );
      if (!read) return SENT;
      if (read.kind === 'folder') {
        sendFolderPage(c.res, folderPage(c, driveId, read));
        return SENT;
      }
      await sendArtifactPage(c.ctx, c.res, filePage(c, read));
      return SENT;
    },
  ),
];

type PathRead = Awaited<ReturnType<typeof pathPageRead>>;

/**
 * A folder that existed only through its files is gone once its last file is deleted: the owner who just did that
 * lands on a page that says so and still offers the Undo, rather than on "Not found".
 */
function emptiedFolder(c: VisitorCall, driveId: string, err: unknown): undefined {
  const flash = c.rc.principal.driveId === driveId ? c.flash() : undefined;
  if (!(err instanceof AppError) || err.status !== 404 || !flash?.notice) throw err;
  sendFolderPage(c.res, {
    title: 'Empty folder',
    base: c.req.path,
    prefix: '',
    folders: [],
    files: [],
    marks: {},
    nav: c.nav(),
    owner: {
      csrf: c.session?.csrf ?? '',
      back: c.req.originalUrl,
      folderPath: located(c).path.replace(/\/+$/, ''),
      folderId: null,
      notice: flashNotice(flash, c.session?.csrf ?? '', c.req.originalUrl) || undefined,
    },
  });
  return undefined;
}

/** The owner's one-time notice and open panels, read once per page. */
function ownerTools(c: VisitorCall, owner: boolean) {
  if (!owner) return undefined;
  return { csrf: c.session?.csrf ?? '', back: c.req.originalUrl, flash: c.flash() };
}

const NOT_SHARED = { people: [], links: [], isPublic: false };

function folderPage(c: VisitorCall, driveId: string, read: Extract<PathRead, { kind: 'folder' }>): FolderPage {
  const { view, path: trimmed } = read;
  const base = `/${driveId}/`;
  const tools = ownerTools(c, read.owner);
  const name = trimmed.slice(trimmed.lastIndexOf('/') + 1);
  const openShare = !!tools?.flash?.share || !!tools?.flash?.url;
  let share: Html | undefined;
  if (tools && view.folder && read.sharing)
    share = sharePanel(tools.csrf, view.folder.id, tools.back, read.sharing, tools.flash?.url, openShare);
  // A folder only paths imply is shared by its path: the first link, grant or public switch makes its record.
  else if (tools && trimmed)
    share = sharePanel(tools.csrf, `${trimmed}/`, tools.back, NOT_SHARED, undefined, openShare);
  return {
    title: trimmed ? `${name}` : 'Files',
    base: trimmed ? `${base}${encodePath(trimmed)}/` : base,
    prefix: trimmed ? `${trimmed}/` : '',
    folders: view.folders,
    files: view.files,
    marks: view.marks,
    nav: c.nav(),
    crumbs: trimmed
      ? crumbsOf(base, trimmed.split('/').slice(0, -1).join('/'), view.owner ? 'Files' : 'Drive', view.owner)
      : undefined,
    sort: SORTS.find((s) => s === c.query('sort')) ?? 'name',
    truncated: view.truncated,
    owner: tools && {
      csrf: tools.csrf,
      back: tools.back,
      folderPath: trimmed,
      folderId: view.folder?.id ?? null,
      share,
      notice: flashNotice(tools.flash, tools.csrf, tools.back) || undefined,
    },
  };
}

function filePage(c: VisitorCall, read: Extract<PathRead, { kind: 'file' }>) {
  const { artifact: a } = read;
  const f = fileFrame(c, a);
  const tools = ownerTools(c, read.owner);
  return {
    artifact: a,
    blob: read.blob,
    selfUrl: f.selfUrl,
    versions: read.versions,
    nav: f.nav,
    crumbs: f.crumbs,
    tools: tools && read.sharing ? (downloads: Html) => fileToolbar(tools, f, read.sharing!, downloads) : undefined,
    badge: badge(undefined, a.visibility),
    folderUrl: f.folderUrl,
    page: pageParam(c.query('page')),
  };
}

/** `?page=` of a find hit in a PDF: a positive page number, else none. */
const pageParam = (v: string) => (/^[1-9]\d{0,6}$/.test(v) ? Number(v) : undefined);

type Tools = NonNullable<ReturnType<typeof ownerTools>>;

/** The file page's Rename / Move (one form: a new name, a new folder) and Copy; the page follows the file. */
function renameOrMove(csrf: string, f: Frame): Html {
  const name = fileName(f.a.path);
  const hidden = hiddenFields(csrf, { ref: f.a.id, back: f.selfUrl });
  return html`<details data-testid="rename-move">
    <summary>Rename or move</summary>
    <div class="panel">
      <form method="post" action="/files/move">
        ${hidden}<input type="hidden" name="follow" value="1" />
        <label>Name <input type="text" name="name" value="${name}" required /></label>
        <label>Folder <input type="text" name="folder" value="${f.folder}" placeholder="(top level)" /></label>
        <button type="submit" class="primary">Save</button>
      </form>
      <form method="post" action="/files/copy" class="row">
        ${hidden}<label>Copy to <input type="text" name="to" value="${f.folder ? `${f.folder}/` : ''}copy-of-${name}" required /></label>
        <button type="submit">Copy</button>
      </form>
    </div>
  </details>`;
}
type Frame = ReturnType<typeof fileFrame>;

function fileToolbar(tools: Tools, f: Frame, sharing: SharingState, downloads: Html): Html {
  const { a, selfUrl, folder } = f;
  const openShare = !!tools.flash?.share || !!tools.flash?.url;
  return html`${flashNotice(tools.flash, tools.csrf, tools.back)}
    <div class="toolbar">
      ${sharePanel(tools.csrf, a.id, selfUrl, sharing, tools.flash?.url, openShare)}
      <details>
        <summary>${icon('upload')} New version</summary>
        <div class="panel">
          <form method="post" action="/files/upload" enctype="multipart/form-data">
            ${hiddenFields(tools.csrf, { folder, name: fileName(a.path), back: selfUrl })}
            <label>File <input type="file" name="files" required /></label>
            <button type="submit" class="primary">Upload as a new version</button>
          </form>
        </div>
      </details>
      ${downloads}
      <a class="button" href="${selfUrl}?history=1">${icon('history')} History</a>
      <a class="button" href="${selfUrl}?activity=1">Activity</a>
      ${renameOrMove(tools.csrf, f)}
      <form class="inline" method="post" action="/files/delete">
        ${hiddenFields(tools.csrf, { ref: a.id, back: selfUrl, after: f.folderUrl })}
        <button type="submit" class="danger" data-testid="file-delete">${icon('trash')} Delete</button>
      </form>
    </div>`;
}

function historyPage(c: VisitorCall, { a, selfUrl, crumbs }: Frame, versions: VersionRow[], owner: boolean) {
  const tools = ownerTools(c, owner);
  // The owner restores an earlier version as a new current one (POST /files/restore-version, src/web/owner).
  const restore = (n: number) =>
    tools
      ? html`<form class="inline" method="post" action="/files/restore-version">
          ${csrfField(tools.csrf)}<input type="hidden" name="ref" value="${a.id}" /><input
            type="hidden"
            name="version"
            value="${n}"
          /><input type="hidden" name="back" value="${selfUrl}?history=1" />
          <button type="submit" data-testid="restore-v${n}">Restore this version</button>
        </form>`
      : '';
  const rows = versions.map(
    (ver, i) =>
      html`<tr>
        <td><a href="${selfUrl}?v=${ver.version_number}">v${ver.version_number}</a>${i === 0 ? ' (current)' : ''}</td>
        <td>${timeTag(ver.created_at)}</td>
        <td class="num">${humanSize(ver.size_bytes)}</td>
        <td class="hide-narrow">
          ${ver.actor_name ?? ''}${ver.change_summary ? html` · ${ver.change_summary}` : ''}${
            ver.run_id ? html` <span class="muted" data-testid="version-run">run ${ver.run_id}</span>` : ''
          }
        </td>
        <td>
          ${
            versions[i + 1]
              ? html`<a href="${selfUrl}?from=${versions[i + 1].version_number}&to=${ver.version_number}"
                  >Changes from v${versions[i + 1].version_number}</a
                >`
              : ''
          }
          ${i === 0 ? '' : restore(ver.version_number)}
        </td>
      </tr>`,
  );
  const head = html`<tr>
    <th>Version</th>
    <th>When</th>
    <th class="num">Size</th>
    <th class="hide-narrow">By</th>
    <th></th>
  </tr>`;
  const notice = tools ? flashNotice(tools.flash, tools.csrf, tools.back) : '';
  return subPage({
    title: `History of ${fileName(a.path)}`,
    crumbs: html`${crumbs}${notice}`,
    selfUrl,
    testId: 'history',
    head,
    rows,
  });
}

/** The file's own event log, newest first (the owner's: events are the drive's). */
function activityPage({ a, selfUrl, crumbs }: Frame, events: EventRow[]) {
  const rows = activityLines(a.drive_id, events, 100).map(
    (l) =>
      html`<tr>
        <td>${timeTag(l.event.created_at)}</td>
        <td>${l.sentence}</td>
        <td class="hide-narrow">${l.event.actor_name ?? ''}</td>
      </tr>`,
  );
  return subPage({ title: `Activity of ${fileName(a.path)}`, crumbs, selfUrl, testId: 'file-activity', rows });
}

const fileName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** A page about one file (its history, its activity): crumbs, a way back to the file, one table. */
function subPage(p: { title: string; crumbs: Html; selfUrl: string; testId: string; head?: Html; rows: Html[] }) {
  return show(
    p.title,
    html`${p.crumbs}
      <p class="meta">
        <a href="${p.selfUrl}">Back to the file</a> · <a href="${p.selfUrl}?history=1">History</a> ·
        <a href="${p.selfUrl}?activity=1">Activity</a>
      </p>
      <div class="scroll">
        <table data-testid="${p.testId}">
          ${
            p.head
              ? html`<thead>
                  ${p.head}
                </thead>`
              : ''
          }
          <tbody>
            ${rowsOr(p.rows, 5, 'Nothing yet.')}
          </tbody>
        </table>
      </div>`,
  );
}

/** A unified diff as lines coloured by kind (added, removed, hunk header); all text escaped. */
function diffHtml(diff: string): Html {
  const all = diff.split('\n');
  const first = all.findIndex((l) => l.startsWith('@@') || l.startsWith('('));
  const lines = first < 0 ? ['(no changes)'] : all.slice(first); // from the first hunk, past the file names
  return html`<pre class="diff" data-testid="diff">
${lines.map((l) => {
  const cls = l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('@@') ? 'hunk' : '';
  return html`<span class="${cls}">${l || ' '}</span>`;
})}</pre>`;
}
