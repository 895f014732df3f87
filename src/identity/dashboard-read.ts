import type { AppContext } from '../platform/context.js';
import { listEvents } from '../files/events.js';
import { driveUsage } from '../usage/usage.js';
import { ownedDrivesWithKeys } from './accounts.js';
import { accountEmailState } from './email-verification.js';
import { webRequestContext, webSessionPrincipal } from './web-principal.js';

/**
 * The dashboard's one read (the web door calls one operation per page): the account's email state, the drives it
 * owns with their API keys, and for the drive the person opened last (else their oldest) its usage and latest events.
 */
export async function dashboardRead(app: AppContext, who: { uid: string; drv?: string | null }, requestId: string) {
  const [drives, account] = await Promise.all([ownedDrivesWithKeys(app, who.uid), accountEmailState(app, who.uid)]);
  const shown = drives.find((d) => d.drive.id === who.drv) ?? drives[0];
  if (!shown) return { drives, account, drive: undefined };
  const rc = webRequestContext(app, webSessionPrincipal(shown.drive.id, who.uid), requestId);
  const [usage, events] = await Promise.all([driveUsage(rc), listEvents(rc, { limit: 30 })]);
  return { drives, account, drive: { id: rc.driveId, name: shown.drive.name ?? null, usage, events: events.items } };
}
