import type { AppContext } from '../platform/context.js';
import {
  checkAuthorizeRequest,
  type AuthorizeRequest,
  createDriveForAccount,
  grantableDrives,
  issueAuthorizationCode,
} from './mcp-oauth.js';
import { OAuthError } from './oauth-error.js';
import { holdingsOf } from '../drives/drive-stats.js';

/**
 * The two steps of the consent page (/oauth2/authorize), each one operation for the web door: the read (the checked
 * request, and for a signed-in account the drives it may grant; a bad request throws before sign-in is asked for) and
 * the owner's answer, returned as the parameters of the redirect back to the client.
 */
export async function consentRead(app: AppContext, q: Record<string, unknown>, ip: string, userId?: string) {
  const request = await checkAuthorizeRequest(app, q, ip);
  const drives = userId ? await grantableDrives(app, userId) : [];
  // Each drive shown by what it holds, so a person with several picks the right one without knowing ids.
  const held = await holdingsOf(
    app.orm.em.fork(),
    drives.map((d) => d.id),
  );
  return {
    request,
    drives: drives.map((d) => ({ id: d.id, name: d.name ?? null, claimedAt: d.claimedAt, ...held.get(d.id)! })),
  };
}

export interface ConsentAnswer {
  decision: string;
  driveId: string;
  readOnly: boolean;
}

export async function answerConsent(
  app: AppContext,
  q: Record<string, unknown>,
  ip: string,
  userId: string,
  answer: ConsentAnswer,
): Promise<{ request: AuthorizeRequest; params: Record<string, string> }> {
  const request = await checkAuthorizeRequest(app, q, ip);
  if (answer.decision !== 'approve' && answer.decision !== 'create')
    return { request, params: { error: 'access_denied', error_description: 'the drive owner denied access' } };
  try {
    // A person with no drive yet makes one here (never stranded on a dead end); with one, the chosen drive.
    const driveId = answer.decision === 'create' ? (await createDriveForAccount(app, userId))[0].id : answer.driveId;
    return { request, params: { code: await issueAuthorizationCode(app, request, userId, driveId, answer.readOnly) } };
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    return { request, params: { error: err.code, error_description: err.description } };
  }
}
