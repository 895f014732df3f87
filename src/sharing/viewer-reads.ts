import type { AppContext } from '../platform/context.js';
import { getArtifactAt } from '../files/artifacts.js';
import { artifactContent, blobOfRow } from '../files/content.js';
import { listEvents } from '../files/events.js';
import { browseFolder, type FolderSort } from '../files/folder-browse.js';
import { diffVersions } from '../files/version-diff.js';
import { listVersions } from '../files/versions.js';
import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import { listSharedFolder, sharedArtifactAt } from './share-contents.js';
import { redeemShare } from './shares.js';
import { sharingState } from './sharing-state.js';

/**
 * The viewer's named reads (the web door calls one operation per page): each reads what one page of
 * `/{drive_id}/{path}` or `/s/{share_key}/…` shows, through the domain operations REST and MCP call, so the one
 * authorization rule decides. The owner's pages add the item's sharing state (the Share panel).
 */
const isOwner = (rc: RequestContext, driveId: string) =>
  rc.principal.driveId === driveId && rc.principal.kind === 'web_session';

/** A path names a file unless it ends in `/` or no file is there (then a folder, explicit or implied by paths). */
export async function pathPageRead(
  rc: RequestContext,
  driveId: string,
  path: string,
  opts: { sort: FolderSort; version?: number },
) {
  const trimmed = path.replace(/\/+$/, '');
  const owner = isOwner(rc, driveId);
  if (trimmed && !path.endsWith('/')) {
    const artifact = await getArtifactAt(rc, driveId, trimmed).catch(absent);
    if (artifact) {
      const [blob, versions, sharing] = await Promise.all([
        artifactContent(rc, { artId: artifact.id, versionNumber: opts.version }),
        listVersions(rc, artifact.id, { limit: 100 }),
        owner ? sharingState(rc, artifact.id) : undefined,
      ]);
      return { kind: 'file' as const, owner, artifact, blob, versions: versions.items, sharing };
    }
  }
  const view = await browseFolder(rc, driveId, trimmed, { sort: opts.sort });
  const sharing = owner && view.folder ? await sharingState(rc, view.folder.id) : undefined;
  return { kind: 'folder' as const, owner, path: trimmed, view, sharing };
}

const absent = (err: unknown): undefined => {
  if (err instanceof AppError && err.code === 'ARTIFACT_NOT_FOUND') return undefined;
  throw err;
};

/** The bytes of a file (a version of it, when asked) for `?raw=1` and `?download=1`. */
export async function contentAt(rc: RequestContext, driveId: string, path: string, version?: number) {
  const artifact = await getArtifactAt(rc, driveId, path);
  return artifactContent(rc, { artId: artifact.id, versionNumber: version });
}

/** `?history=1`: the file's versions, newest first. */
export async function historyAt(rc: RequestContext, driveId: string, path: string) {
  const artifact = await getArtifactAt(rc, driveId, path);
  return {
    artifact,
    owner: isOwner(rc, driveId),
    versions: (await listVersions(rc, artifact.id, { limit: 100 })).items,
  };
}

/** `?activity=1`: the file's own event log (the owner's: events are the drive's). */
export async function activityAt(rc: RequestContext, driveId: string, path: string) {
  const artifact = await getArtifactAt(rc, driveId, path);
  if (!isOwner(rc, driveId)) throw new AppError('ARTIFACT_NOT_FOUND', 'no live artifact at this path');
  return { artifact, events: (await listEvents(rc, { artId: artifact.id, limit: 100 })).items };
}

/** `?from=&to=`: the changes between two versions. */
export async function diffAt(rc: RequestContext, driveId: string, path: string, from: number, to: number) {
  const artifact = await getArtifactAt(rc, driveId, path);
  return { artifact, diff: await diffVersions(rc, artifact.id, from, to) };
}

/**
 * `/s/{share_key}/{rest}`: the link redeemed (its role on its resource, nothing else; a password once, then the
 * unlock) and what it shows: its file, a file below its folder, or the folder's files below `rest`.
 */
export async function shareRead(
  app: AppContext,
  key: string,
  rest: string,
  visitor: { password: string | null; ip: string; unlock?: string },
) {
  const r = await redeemShare(app, key, visitor.password, visitor.ip, visitor.unlock);
  const sub = rest.replace(/\/+$/, '');
  const artifact: ArtifactRow | undefined =
    r.artifact ?? (sub && !rest.endsWith('/') ? await sharedArtifactAt(app, r, sub).catch(absentAny) : undefined);
  if (artifact) return { kind: 'file' as const, redemption: r, sub, artifact, blob: blobOfRow(artifact) };
  if (!r.folder) throw new AppError('NOT_FOUND', 'nothing shared at this path');
  const prefix = `${r.folder.path}/${sub ? `${sub}/` : ''}`;
  const items = (await listSharedFolder(app, r, 2000)).filter((a) => a.path.startsWith(prefix));
  if (sub && !items.length) throw new AppError('NOT_FOUND', 'nothing shared at this path');
  return { kind: 'folder' as const, redemption: r, sub, prefix, items };
}

/** A path below a shared folder that is no file may be a folder: the domain's 404 says "try the folder". */
const absentAny = (err: unknown): undefined => {
  if (err instanceof AppError && err.status === 404) return undefined;
  throw err;
};
