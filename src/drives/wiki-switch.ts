import { transaction } from '../db/sql.js';
import type { DriveSettings } from '../db/entities/drive.js';
import { updateDriveSettings, wikiIndexingOf } from './drive-settings.js';
import { driveOverview, type DriveOverview } from './drives.js';
import { wikiCandidateIds } from '../files/llm-index.js';
import type { RequestContext } from '../platform/request-context.js';
import { enqueueArtifacts } from '../outbox/outbox.js';

/**
 * The owner's switch (`settings.wiki_indexing`, on by default). Off: passes send nothing (pages keep
 * what earlier passes put there). Turned on from off, with a language model configured: every live
 * candidate artifact of the drive is queued for the wiki in the same transaction, and the worker's
 * drainer reads them in the background (unchanged content is not sent again).
 */
export async function setDriveSettings(rc: RequestContext, patch: DriveSettings): Promise<DriveOverview> {
  await transaction(rc.app, async (tx) => {
    const { before, after } = await updateDriveSettings(rc, tx, patch);
    if (rc.app.config.llm && !wikiIndexingOf(before) && wikiIndexingOf(after)) {
      const driveId = rc.principal.driveId;
      await enqueueArtifacts(
        tx,
        ['wiki'],
        (await wikiCandidateIds(tx, driveId)).map((artId) => ({ driveId, artId, op: 'content' as const })),
      );
    }
  });
  return driveOverview(rc);
}
