import type { AppContext } from '../../platform/context.js';
import { uploadArtifact } from '../../files/artifacts.js';
import { createFolder } from '../../files/folders.js';
import { nameBatch, pathFromPerson } from '../../files/file-names.js';
import { copyByRef, deleteByRef, moveByRef, restoreByRef } from '../../files/ref-writes.js';
import { AppError } from '../../lib/errors.js';
import { encodePath, safeBack } from '../format.js';
import { go, type OwnerCall } from '../kit/call.js';
import { form, upload, type Declaration } from '../kit/declare.js';

/**
 * Managing files from the folder and file pages, each a form of the kit (src/web/kit: CSRF, one write of the budget,
 * the refusal page) answered with 303 to a page: upload (multipart, several files), new folder, rename and move (one
 * form action: a new path), copy, restore a version, delete (to the trash, with an Undo on the next page). Each is the
 * domain operation REST and MCP call, so the rules and errors are theirs.
 */
export const UPLOAD_MAX_FILES = 20;

const folderUrl = (drv: string, path: string) => `/${drv}/${path ? `${encodePath(path)}/` : ''}`;
const join = (folder: string, name: string) => [folder.replace(/^\/+|\/+$/g, ''), name].filter(Boolean).join('/');
const backOf = (c: OwnerCall) => safeBack(c.field('back'), folderUrl(c.session.drv, ''));
/** A name or path the person typed, through the domain's name rule; the notice says when it was mapped. */
const typed = (c: OwnerCall, field: string) => {
  const given = c.field(field).trim();
  const { path, mapped } = pathFromPerson(given);
  return { path, said: mapped ? ` Renamed for the drive: ${given} → ${path}.` : '' };
};

const uploadForm = upload(
  {
    path: '/files/upload',
    who: 'owner',
    writes: true,
    refusalTitle: 'Upload stopped',
    limits: (ctx: AppContext) => ({ files: UPLOAD_MAX_FILES, fileSize: ctx.config.limits.maxUploadBytes }),
  },
  async (c) => {
    const uploaded: string[] = [];
    const mapped: string[] = [];
    // A file page's "New version" names the file; otherwise the browser's file name does, through the domain's name
    // rule (src/files/file-names.ts), and the original name is kept.
    const nameOf = nameBatch();
    try {
      for await (const f of c.files()) {
        const given = c.field('name') || f.filename;
        const named = nameOf(given);
        const path = join(c.field('folder'), named.path);
        const type = f.mimeType && f.mimeType !== 'application/octet-stream' ? f.mimeType : undefined;
        const filename = named.mapped && !c.field('name') ? given : undefined;
        await uploadArtifact(c.rc, { path, contentType: type, filename }, { stream: f.stream });
        uploaded.push(path);
        if (filename) mapped.push(`${given} → ${named.path}`);
      }
    } catch (err) {
      // What was stored before the refusal is said on the refusal page.
      if (!(err instanceof AppError) || !uploaded.length) throw err;
      throw Object.assign(
        new AppError(err.code, `Uploaded ${uploaded.join(', ')}; then: ${err.message}`, err.extra, err.headers),
        { status: err.status },
      );
    }
    const back = safeBack(c.field('back'), folderUrl(c.session.drv, c.field('folder')));
    const renamed = mapped.length ? ` Renamed for the drive: ${mapped.join('; ')}.` : '';
    return go(back, {
      notice: `${uploaded.length === 1 ? `Uploaded ${uploaded[0]}.` : `Uploaded ${uploaded.length} files.`}${renamed}`,
    });
  },
);

export const fileActions: Declaration[] = [
  uploadForm,
  form({ path: '/files/new-folder', who: 'owner', writes: true }, async (c) => {
    const name = typed(c, 'name');
    const f = await createFolder(c.rc, { path: join(c.field('folder'), name.path) });
    return go(folderUrl(c.session.drv, f.path), name.said ? { notice: `Created ${f.path}.${name.said}` } : undefined);
  }),

  // Rename and move: the item's new path is `folder/name` (a rename keeps the folder, a move keeps the name).
  form({ path: '/files/move', who: 'owner', writes: true }, async (c) => {
    const name = typed(c, 'name');
    const folder = pathFromPerson(c.field('folder')).path;
    const moved = await moveByRef(c.rc, { ref: c.field('ref'), path: join(folder, name.path) });
    const now = moved.kind === 'artifact' ? moved.artifact.path : moved.folder.path;
    const notice = `Moved to ${now}.${name.said}`;
    if (c.field('follow') === '1')
      return go(moved.kind === 'artifact' ? `/${c.session.drv}/${encodePath(now)}` : folderUrl(c.session.drv, now), {
        notice,
      });
    return go(backOf(c), { notice });
  }),

  form({ path: '/files/copy', who: 'owner', writes: true }, async (c) => {
    const to = typed(c, 'to');
    const { copy } = await copyByRef(c.rc, { ref: c.field('ref'), path: to.path });
    return go(backOf(c), { notice: `Copied to ${copy.path}.${to.said}` });
  }),

  // Restore this version (history page): a new current version holding an earlier one.
  form({ path: '/files/restore-version', who: 'owner', writes: true }, async (c) => {
    const version = Number(c.field('version'));
    if (!Number.isInteger(version) || version < 1) throw new AppError('VALIDATION_ERROR', 'no such version');
    const a = await restoreByRef(c.rc, { ref: c.field('ref'), overwrite: false, version });
    return go(backOf(c), { notice: `Restored version ${version} as version ${a.version_number}.` });
  }),

  // Delete: to the trash; a file's Undo restores it (a folder's contents wait in the trash).
  form({ path: '/files/delete', who: 'owner', writes: true }, async (c) => {
    const gone = await deleteByRef(c.rc, { ref: c.field('ref') || c.field('art_id'), recursive: true });
    const to = safeBack(c.field('after'), backOf(c));
    if (gone.kind === 'artifact')
      return go(to, { notice: `Moved ${gone.artifact.path} to the trash.`, undo: gone.artifact.id });
    return go(to, {
      notice: `Moved the folder ${gone.folder.folder.path} and ${gone.folder.nArtifactsDeleted} files to the trash.`,
    });
  }),
];
