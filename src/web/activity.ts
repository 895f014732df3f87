import type { EventRow } from '../files/events.js';
import { encodePath } from './format.js';
import { html, type Html } from './html.js';

/**
 * Recent activity as sentences people read ("Compiled paper", "Renamed a.md → b.md"), newest first; the events of
 * one compile job (queued, running, succeeded) fold into one line saying where it ended.
 */
export interface ActivityLine {
  event: EventRow;
  sentence: Html;
}

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
const lastName = (path: string) => path.slice(path.lastIndexOf('/') + 1) || path;

/** A link to what the event is about: the file or folder at its path then, the trash for a deletion. */
function target(driveId: string, e: EventRow, path: string | undefined): Html | string {
  if (!path) {
    // Sharing events name the artifact or folder by id: its permalink leads to it wherever it is now.
    if (e.art_id) return html`<a href="/a/${e.art_id}">a file</a>`;
    return e.fld_id ? html`<a href="/f/${e.fld_id}">a folder</a>` : 'the drive';
  }
  if (/\.(deleted|purged)$/.test(e.action)) return html`<a href="/trash">${path}</a>`;
  const folder = e.fld_id && !e.art_id;
  return html`<a href="/${driveId}/${encodePath(path)}${folder ? '/' : ''}">${path}</a>`;
}

const JOB: Record<string, string> = {
  'job.queued': 'Queued a compile of',
  'job.running': 'Compiling',
  'job.succeeded': 'Compiled',
  'job.failed': 'Compile failed for',
  'job.cancelled': 'Cancelled the compile of',
  'job.timed_out': 'Compile timed out for',
};

function sentence(driveId: string, e: EventRow): Html {
  const m = e.metadata ?? {};
  const path = text(m.to) ?? text(m.path);
  const at = target(driveId, e, path);
  const version = typeof m.version_number === 'number' ? ` (v${m.version_number})` : '';
  switch (e.action) {
    case 'artifact.created':
      return html`Created ${at}`;
    case 'artifact.updated':
      return html`Updated ${at}${version}`;
    case 'artifact.renamed':
    case 'folder.moved':
      return text(m.from) && text(m.to) ? html`Renamed ${text(m.from)} → ${at}` : html`Moved ${at}`;
    case 'artifact.copied':
      return html`Copied to ${at}`;
    case 'artifact.deleted':
      return html`Moved ${at} to the trash`;
    case 'artifact.restored':
      return html`Restored ${at}${version}`;
    case 'artifact.purged':
      return html`Deleted ${path ?? 'a file'} forever`;
    case 'artifact.metadata_updated':
      return html`Changed the labels of ${at}`;
    case 'folder.created':
      return html`Created the folder ${at}`;
    case 'folder.deleted':
      return html`Moved the folder ${at} to the trash`;
    case 'grant.created':
      return html`Shared ${at}`;
    case 'grant.revoked':
      return html`Stopped sharing ${at}`;
    case 'share.created':
      return html`Made a share link to ${at}`;
    case 'share.revoked':
      return html`Revoked a share link to ${at}`;
    case 'share.rotated':
      return html`Changed a share link to ${at}`;
    default:
      if (JOB[e.action]) return html`${JOB[e.action]} ${path ? lastNameLink(driveId, path) : 'a project'}`;
      return html`${e.action} ${at}`;
  }
}

const lastNameLink = (driveId: string, path: string) =>
  html`<a href="/${driveId}/${encodePath(path)}/" title="${path}">${lastName(path)}</a>`;

/** The events as sentences, newest first, one line per compile job (its latest state). */
export function activityLines(driveId: string, events: EventRow[], limit = 10): ActivityLine[] {
  const seenJobs = new Set<string>();
  const lines: ActivityLine[] = [];
  for (const e of events) {
    const job = e.action.startsWith('job.') ? text(e.metadata?.job_id) : undefined;
    if (job) {
      if (seenJobs.has(job)) continue;
      seenJobs.add(job);
    }
    lines.push({ event: e, sentence: sentence(driveId, e) });
    if (lines.length >= limit) break;
  }
  return lines;
}
