import type { Request, Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import { getArtifactAt } from '../../files/artifacts.js';
import { artifactContent } from '../../files/content.js';
import { browseFolder, type FolderSort } from '../../files/folder-browse.js';
import { diffVersions } from '../../files/version-diff.js';
import { listVersions } from '../../files/versions.js';
import { listEvents } from '../../files/events.js';
import { AppError } from '../../lib/errors.js';
import type { RequestContext } from '../../platform/request-context.js';
import type { ArtifactRow } from '../../records/artifact-records.js';
import { sharingState } from '../../sharing/sharing-state.js';
import { encodePath, humanSize, timeTag } from '../format.js';
import { csrfField, html, rowsOr, sendPage, type Html } from '../html.js';
import { icon } from '../icons.js';
import { navFor } from '../nav.js';
import { flashNotice } from '../owner/notice.js';
import { sharePanel } from '../owner/share-panel.js';
import { readSession, takeFlash } from '../session.js';
import { sendArtifactPage, sendRaw } from './artifact-page.js';
import { badge, crumbsOf, itemActions, sendFolderPage } from './folder-page.js';

/**
 * `/{drive_id}/{path}`: a file (its page, raw, download, history, a diff between versions) or a folder, explicit or
 * implied by paths (`browseFolder`); the drive root is its owner's Files page. The owner's pages carry the tools
 * (upload, new folder, share, rename, move, copy, delete); everyone else sees what the one rule lets them read.
 */
const flag = (v: unknown) => v === '1' || v === 'true';
const versionParam = (v: unknown) => (typeof v === 'string' && /^[1-9]\d{0,8}$/.test(v) ? Number(v) : undefined);
const SORTS: FolderSort[] = ['name', 'size', 'date'];

function ownerTools(ctx: AppContext, req: Request, res: Response, rc: RequestContext, driveId: string) {
  if (rc.principal.driveId !== driveId || rc.principal.kind !== 'web_session') return undefined;
  const session = readSession(req)!;
  const flash = takeFlash(ctx.config, req, res, req.path);
  return { csrf: session.csrf, back: req.originalUrl, flash };
}

export async function viewPath(
  ctx: AppContext,
  rc: RequestContext,
  req: Request,
  res: Response,
  driveId: string,
  path: string,
): Promise<void> {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed && !path.endsWith('/')) {
    try {
      const a = await getArtifactAt(rc, driveId, trimmed);
      return await viewFile(ctx, rc, req, res, a);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'ARTIFACT_NOT_FOUND')) throw err;
    }
  }
  const sort = SORTS.find((s) => s === req.query.sort) ?? 'name';
  const view = await browseFolder(rc, driveId, trimmed, { sort });
  const base = `/${driveId}/`;
  const tools = ownerTools(ctx, req, res, rc, driveId);
  const name = trimmed.slice(trimmed.lastIndexOf('/') + 1);
  let share: Html | undefined;
  if (tools && view.folder) {
    const state = await sharingState(rc, view.folder.id);
    share = sharePanel(
      tools.csrf,
      view.folder.id,
      tools.back,
      state,
      tools.flash?.url,
      !!tools.flash?.share || !!tools.flash?.url,
    );
  } else if (tools && trimmed) {
    share = html`<details class="share" data-testid="share-control">
      <summary>${icon('share')} Share</summary>
      <div class="panel">
        <p>This folder exists because files are in it. To share it, make it a folder of its own first.</p>
        <form method="post" action="/files/new-folder">
          ${csrfField(tools.csrf)}<input type="hidden" name="name" value="${trimmed}" />
          <input type="hidden" name="back" value="${tools.back}" /><button type="submit">Make it a folder</button>
        </form>
      </div>
    </details>`;
  }
  sendFolderPage(res, {
    title: trimmed ? `${name}` : 'Files',
    base: trimmed ? `${base}${encodePath(trimmed)}/` : base,
    prefix: trimmed ? `${trimmed}/` : '',
    folders: view.folders,
    files: view.files,
    marks: view.marks,
    nav: navFor(ctx.config, req),
    crumbs: trimmed
      ? crumbsOf(base, trimmed.split('/').slice(0, -1).join('/'), view.owner ? 'Files' : 'Drive', view.owner)
      : undefined,
    sort,
    truncated: view.truncated,
    owner: tools && {
      csrf: tools.csrf,
      back: tools.back,
      folderPath: trimmed,
      folderId: view.folder?.id ?? null,
      share,
      notice: flashNotice(tools.flash, tools.csrf, tools.back) || undefined,
    },
  });
}

async function viewFile(ctx: AppContext, rc: RequestContext, req: Request, res: Response, a: ArtifactRow) {
  const v = versionParam(req.query.v);
  if (flag(req.query.raw) || flag(req.query.download)) {
    const blob = await artifactContent(rc, { artId: a.id, versionNumber: v });
    return sendRaw(ctx, res, blob, flag(req.query.download));
  }
  const base = `/${a.drive_id}/`;
  const selfUrl = `${base}${encodePath(a.path)}`;
  const nav = navFor(ctx.config, req);
  const folder = a.path.includes('/') ? a.path.slice(0, a.path.lastIndexOf('/')) : '';
  const owner = rc.principal.driveId === a.drive_id;
  const crumbs = crumbsOf(base, folder, owner ? 'Files' : 'Drive', owner);
  const file: FilePage = { rc, res, a, selfUrl, nav, crumbs };
  if (flag(req.query.history)) return historyPage({ ...file, tools: ownerTools(ctx, req, res, rc, a.drive_id) });
  if (flag(req.query.activity) && owner) return activityPage(file);
  const from = versionParam(req.query.from);
  const to = versionParam(req.query.to);
  if (from && to) {
    const d = await diffVersions(rc, a.id, from, to);
    return sendPage(
      res,
      `Changes in ${a.path.slice(a.path.lastIndexOf('/') + 1)}`,
      html`${crumbs}
        <p class="meta">Version ${d.from} → version ${d.to} · <a href="${selfUrl}?history=1">All versions</a></p>
        ${diffHtml(d.diff)}`,
      200,
      { wide: true, nav },
    );
  }
  const blob = await artifactContent(rc, { artId: a.id, versionNumber: v });
  const versions = (await listVersions(rc, a.id, { limit: 100 })).items;
  const tools = ownerTools(ctx, req, res, rc, a.drive_id);
  let toolbar: Html | undefined;
  if (tools) {
    const state = await sharingState(rc, a.id);
    const folderUrl = `${base}${folder ? `${encodePath(folder)}/` : ''}`;
    toolbar = html`${flashNotice(tools.flash, tools.csrf, tools.back)}
      <div class="toolbar">
        ${sharePanel(tools.csrf, a.id, selfUrl, state, tools.flash?.url, !!tools.flash?.share || !!tools.flash?.url)}
        <details>
          <summary>${icon('upload')} New version</summary>
          <div class="panel">
            <form method="post" action="/files/upload" enctype="multipart/form-data">
              ${csrfField(tools.csrf)}<input type="hidden" name="folder" value="${folder}" /><input
                type="hidden"
                name="name"
                value="${fileName(a.path)}"
              /><input type="hidden" name="back" value="${selfUrl}" />
              <label>File <input type="file" name="files" required /></label>
              <button type="submit" class="primary">Upload as a new version</button>
            </form>
          </div>
        </details>
        <a class="button" href="${selfUrl}?history=1">${icon('history')} History</a>
        <a class="button" href="${selfUrl}?activity=1">Activity</a>
        ${itemActions(
          { csrf: tools.csrf, back: selfUrl, folderPath: folder },
          a.id,
          a.path.slice(folder ? folder.length + 1 : 0),
          false,
          html`<input type="hidden" name="follow" value="1" /><input
              type="hidden"
              name="after"
              value="${folderUrl}"
            />`,
        )}
      </div>`;
  }
  await sendArtifactPage(ctx, res, {
    artifact: a,
    blob,
    selfUrl,
    versions,
    nav,
    crumbs,
    tools: toolbar,
    badge: badge(undefined, a.visibility),
    folderUrl: `${base}${folder ? `${encodePath(folder)}/` : ''}`,
  });
}

/** What a file's sub-pages (history, activity) are drawn from. */
interface FilePage {
  rc: RequestContext;
  res: Response;
  a: ArtifactRow;
  selfUrl: string;
  nav: Html;
  crumbs: Html;
  tools?: ReturnType<typeof ownerTools>;
}

async function historyPage({ rc, res, a, selfUrl, nav, crumbs, tools }: FilePage) {
  const versions = (await listVersions(rc, a.id, { limit: 100 })).items;
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
  subPage(res, {
    title: `History of ${fileName(a.path)}`,
    crumbs: html`${crumbs}${notice}`,
    selfUrl,
    nav,
    testId: 'history',
    head,
    rows,
  });
}

/** The file's own event log, newest first (the owner's: events are the drive's). */
async function activityPage({ rc, res, a, selfUrl, nav, crumbs }: FilePage) {
  const { items } = await listEvents(rc, { artId: a.id, limit: 100 });
  const rows = items.map(
    (e) =>
      html`<tr>
        <td>${timeTag(e.created_at)}</td>
        <td>${e.action}</td>
        <td>${typeof e.metadata?.version_number === 'number' ? `v${e.metadata.version_number}` : ''}</td>
        <td class="hide-narrow">${e.actor_name ?? ''}</td>
      </tr>`,
  );
  subPage(res, { title: `Activity of ${fileName(a.path)}`, crumbs, selfUrl, nav, testId: 'file-activity', rows });
}

const fileName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** A page about one file (its history, its activity): crumbs, a way back to the file, one table. */
function subPage(
  res: Response,
  p: { title: string; crumbs: Html; selfUrl: string; nav: Html; testId: string; head?: Html; rows: Html[] },
) {
  sendPage(
    res,
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
    200,
    { wide: true, nav: p.nav },
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
