import type { AppContext } from '../platform/context.js';
import { listEvents } from '../files/events.js';
import { driveUsage } from '../usage/usage.js';
import { ownedDrivesWithKeys } from './accounts.js';
import { accountEmailState } from './email-verification.js';
import { webRequestContext, webSessionPrincipal } from './web-principal.js';

/**
 * The dashboard's one read (the web door calls one operation per page): the account's email state, the drives it
 * owns with their API keys, and for the drive the session works on its usage and latest events.
 */
export async function dashboardRead(app: AppContext, who: { uid: string; drv?: string | null }, requestId: string) {
  const rc = who.drv ? webRequestContext(app, webSessionPrincipal(who.drv, who.uid), requestId) : undefined;
  const [drives, account, usage, events] = await Promise.all([
    ownedDrivesWithKeys(app, who.uid),
    accountEmailState(app, who.uid),
    rc ? driveUsage(rc) : undefined,
    rc ? listEvents(rc, { limit: 30 }) : undefined,
  ]);
  return {
    drives,
    account,
    drive: rc && usage && events ? { id: rc.driveId, usage, events: events.items } : undefined,
  };
}
