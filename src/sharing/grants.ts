import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import { EventAction } from '../files/events.js';
import { writeTransaction, type WriteTx } from '../files/write-transaction.js';
import { one, rows, type Db } from '../db/sql.js';
import {
  authorize,
  authorizeThrough,
  callerPrincipals,
  LIVE_GRANT,
  type Access,
  type Capability,
  type Role,
} from '../access/authorize.js';
import { checkPrincipal, insertGrant, type GrantRow, type PrincipalIn } from '../access/grant-records.js';
import { authorizeTarget, resolveResource, resolveTarget, resourceOf, targetColumns } from './resources.js';
import { syncVisibility } from '../files/visibility.js';

/**
 * Grants (spec 4.6, 3.7): create-or-fetch, list, patch and revoke. Each asks the one rule
 * (authorize.ts) for `can_manage` on the grant's resource; a grantee may revoke its own grant.
 */
export type { GrantRow, PrincipalIn };

const grantNotFound = () => new AppError('NOT_FOUND', 'no live grant with this id');

/** Who made a grant or share: the credential behind the request. */
export const actingCredential = (rc: RequestContext) => ({
  type: rc.principal.identityId ? 'agent' : 'api_key',
  id: rc.principal.identityId ?? rc.principal.credentialId,
  onBehalfOf: rc.principal.driveId,
});

const resourceColumns = (a: Access) => ({ artId: a.artifact?.id ?? null, fldId: a.folder?.id ?? null });

async function afterChange(
  w: WriteTx,
  g: GrantRow,
  action: string,
  actor: string | null,
  metadata: Record<string, unknown>,
) {
  await w.event({
    driveId: g.drive_id,
    artId: g.art_id,
    fldId: g.fld_id,
    action,
    actor,
    metadata: {
      grn_id: g.id,
      principal_type: g.principal_type,
      principal_id: g.principal_id,
      principal_email: g.principal_email,
      role: g.role,
      ...metadata,
    },
  });
  if (g.art_id && g.principal_type === 'anyone') await syncVisibility(w, g.art_id);
}

/** POST /v0/grants: the live grant for this principal on this resource, created when there is none. */
export async function createGrant(
  rc: RequestContext,
  input: { resource: string; principal: PrincipalIn; role: Role; expiresIn?: number | null },
): Promise<GrantRow> {
  const principal = checkPrincipal(input.principal);
  const target = await resolveTarget(rc, input.resource);
  const access = await authorizeTarget(rc, target, 'can_manage');
  return writeTransaction(rc.app, async (w) => {
    const { artId, fldId } = await targetColumns(w, rc, target, access);
    // An expired grant is dead (docs/decisions.md): retire it so the principal can be granted again.
    await rows(
      w.tx,
      `update grants set revoked_at = expires_at where coalesce(art_id, fld_id) = ? and principal_key = ? and revoked_at is null and expires_at <= clock_timestamp()`,
      [artId ?? fldId, principal.key],
    );
    const created = await insertGrant(w.tx, {
      driveId: access.driveId,
      artId,
      fldId,
      principal: input.principal,
      role: input.role,
      grantedBy: actingCredential(rc),
      expiresInS: input.expiresIn ?? null,
    });
    if (!created) {
      return (await one<GrantRow>(
        w.tx,
        `select * from grants where coalesce(art_id, fld_id) = ? and principal_key = ? and revoked_at is null`,
        [artId ?? fldId, principal.key],
      ))!;
    }
    await afterChange(w, created, EventAction.grantCreated, rc.actor, { expires_at: created.expires_at });
    return created;
  });
}

/** GET /v0/grants?resource=: the live grants made on exactly this resource (not those inherited from folders above). */
export async function listGrants(rc: RequestContext, resource: string): Promise<GrantRow[]> {
  const access = await authorize(rc, await resolveResource(rc, resource), 'can_manage');
  const { artId, fldId } = resourceColumns(access);
  return rows<GrantRow>(
    rc.app.orm.em.fork(),
    `select g.* from grants g where coalesce(g.art_id, g.fld_id) = ? and ${LIVE_GRANT} order by g.created_at, g.id`,
    [artId ?? fldId],
  );
}

async function liveGrant(db: Db, grnId: string, lock = false): Promise<GrantRow> {
  const g = await one<GrantRow>(
    db,
    `select g.* from grants g where g.id = ? and ${LIVE_GRANT}${lock ? ' for update' : ''}`,
    [grnId],
  );
  if (!g) throw grantNotFound();
  return g;
}

const authorizeOnGrant = (rc: RequestContext, g: GrantRow, capability: Capability, db: Db) =>
  authorizeThrough(rc, resourceOf(g), capability, grantNotFound, db);

/** PATCH /v0/grants/{grn_id}: role and/or expiry; `expiresIn: null` makes it permanent, undefined leaves it. */
export async function patchGrant(
  rc: RequestContext,
  grnId: string,
  input: { role?: Role; expiresIn?: number | null },
): Promise<GrantRow> {
  await authorizeOnGrant(rc, await liveGrant(rc.app.orm.em.fork(), grnId), 'can_manage', rc.app.orm.em.fork());
  return writeTransaction(rc.app, async (w) => {
    const g = await liveGrant(w.tx, grnId, true);
    const row = (await one<GrantRow>(
      w.tx,
      `update grants set role = coalesce(?, role),
         expires_at = case when ? then (case when ?::int is null then null else clock_timestamp() + make_interval(secs => ?::int) end) else expires_at end,
         updated_at = clock_timestamp()
       where id = ? returning *`,
      [input.role ?? null, input.expiresIn !== undefined, input.expiresIn ?? null, input.expiresIn ?? null, g.id],
    ))!;
    await afterChange(w, row, EventAction.grantUpdated, rc.actor, {
      fields: [...(input.role !== undefined ? ['role'] : []), ...(input.expiresIn !== undefined ? ['expires_at'] : [])],
      from_role: g.role,
      expires_at: row.expires_at,
    });
    return row;
  });
}

/** Whether the grant names the caller itself (an agent or user principal): then the caller may revoke it. */
async function isOwnGrant(db: Db, rc: RequestContext, g: GrantRow): Promise<boolean> {
  if (g.principal_type === 'agent') return g.principal_id !== null && g.principal_id === rc.principal.identityId;
  if (g.principal_type !== 'user') return false; // anyone / org grants belong to more than the caller
  const me = await callerPrincipals(db, rc);
  return (
    (g.principal_id !== null && g.principal_id === me.userId) ||
    (g.principal_email !== null && g.principal_email === me.email)
  );
}

/** DELETE /v0/grants/{grn_id}: needs can_manage on the resource, or the grantee revoking its own grant. */
export async function revokeGrant(rc: RequestContext, grnId: string): Promise<GrantRow> {
  const db = rc.app.orm.em.fork();
  const current = await liveGrant(db, grnId);
  const own = await isOwnGrant(db, rc, current);
  if (!own) await authorizeOnGrant(rc, current, 'can_manage', db);
  return writeTransaction(rc.app, async (w) => {
    const g = await liveGrant(w.tx, grnId, true);
    const row = (await one<GrantRow>(
      w.tx,
      `update grants set revoked_at = clock_timestamp(), updated_at = clock_timestamp() where id = ? returning *`,
      [g.id],
    ))!;
    await afterChange(w, row, EventAction.grantRevoked, rc.actor, { by_grantee: own });
    return row;
  });
}
