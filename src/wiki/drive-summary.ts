import { artifactsByTopFolder } from '../drives/drive-stats.js';
import { driveOverview } from '../drives/drives.js';
import { listEvents } from '../files/events.js';
import type { RequestContext } from '../platform/request-context.js';
import { driveUsage } from '../usage/usage.js';
import { topWikiPages } from './browse.js';

/**
 * The drive at a glance (MCP overview): the drive, its usage, artifact counts per top-level folder, the latest events
 * and the wiki's top pages. It sits on the wiki's floor because it reads the wiki; everything else it reads is lower.
 */
export async function driveSummary(rc: RequestContext, options: { recentEvents: number; topPages: number }) {
  const [drive, usage, byFolder, recent, entities, concepts] = await Promise.all([
    driveOverview(rc),
    driveUsage(rc),
    artifactsByTopFolder(rc),
    listEvents(rc, { limit: options.recentEvents }),
    topWikiPages(rc, 'entity', options.topPages),
    topWikiPages(rc, 'concept', options.topPages),
  ]);
  return { drive, usage, byFolder, recentEvents: recent.items, entities, concepts };
}
