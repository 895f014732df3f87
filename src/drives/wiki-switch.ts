import { transaction } from '../db/sql.js';
import type { DriveSettings } from '../db/entities/drive.js';
import { driveNameOf, updateDriveName, updateDriveSettings, wikiIndexingOf } from './drive-settings.js';
import { driveOverview, type DriveOverview } from './drives.js';
import { wikiCandidateIds } from '../files/llm-index.js';
import type { RequestContext } from '../platform/request-context.js';
import { enqueueArtifacts } from '../outbox/outbox.js';

/** What the owner changes of a drive (PATCH /v0/drives/me, the web's Settings): its name and its settings. */
export interface DrivePatch {
  /** The new name (see `driveNameOf`); '' or null clears it. */
  name?: string | null;
  settings?: DriveSettings;
}

/**
 * The drive's name, when given, is set in the same transaction. The owner's switch (`settings.wiki_indexing`, on by
 * default). Off: passes send nothing (pages keep what earlier passes put there). Turned on from off, with a language
 * model configured: every live candidate artifact of the drive is queued for the wiki in the same transaction, and
 * the worker's drainer reads them in the background (unchanged content is not sent again).
 */
export async function setDriveSettings(rc: RequestContext, patch: DrivePatch): Promise<DriveOverview> {
  const name = patch.name === undefined ? undefined : driveNameOf(patch.name ?? '');
  await transaction(rc.app, async (tx) => {
    if (name !== undefined) await updateDriveName(rc, tx, name);
    const { before, after } = await updateDriveSettings(rc, tx, patch.settings ?? {});
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
