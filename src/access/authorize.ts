import { AppError } from '../lib/errors.js';
import type { Principal, RequestContext } from '../platform/request-context.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import { one, rows, type Db } from '../db/sql.js';

/**
 * The one authorization rule (docs/architecture.md, "Authorization"). Every operation that reaches
 * an artifact or folder by id asks `authorize(rc, resource, capability)`, whichever door (REST,
 * MCP, viewer) the request came through:
 * - the drive's own credentials hold every capability on everything in the drive;
 * - anyone else holds the capabilities of the best live grant that covers the resource for one of
 *   the principals their credential stands for (their agent identity, the web user and email that
 *   own their drive, their drive's organization, and `anyone`), on a live drive;
 * - a caller who cannot read the resource gets the same 404 as for an absent one (existence never
 *   leaks); a reader lacking the capability gets 403 PERMISSION_DENIED.
 * Grants cover: the artifact or folder they name, and every descendant of a granted folder (now
 * and later) except below a folder with `inherit_grants: false`, which takes no grant from above.
 */
export const ROLES = ['viewer', 'commenter', 'editor', 'manager'] as const;
export type Role = (typeof ROLES)[number];
export type Capability = 'read' | 'write' | 'can_share' | 'can_manage';

/** Roles → capabilities (docs/decisions.md, Sharing). The drive's own credentials hold all of them. */
export const ROLE_CAPABILITIES: Record<Role, readonly Capability[]> = {
  viewer: ['read'],
  commenter: ['read'],
  editor: ['read', 'write', 'can_share'],
  manager: ['read', 'write', 'can_share', 'can_manage'],
};

export const roleRank = (role: Role | 'owner') => (role === 'owner' ? ROLES.length : ROLES.indexOf(role));
export const roleCan = (role: Role | 'owner', capability: Capability) =>
  role === 'owner' || ROLE_CAPABILITIES[role].includes(capability);

export type Resource = { artId: string } | { fldId: string };

/** The folder columns the rule reads (src/files/folders.ts has the full row). */
export interface FolderRef {
  id: string;
  drive_id: string;
  path: string;
  inherit_grants: boolean;
}

export interface Access {
  /** The drive the resource lives on: the one the operation must act on. */
  driveId: string;
  /** The caller's own drive. */
  owner: boolean;
  role: Role | 'owner';
  /**
   * The role comes from `anyone` grants only (the resource is public, not shared with this caller): such a caller
   * reads the current version only (docs/decisions/sharing.md, "Public means the current version").
   */
  publicOnly: boolean;
  artifact?: ArtifactRow;
  folder?: FolderRef;
}

export const permissionDenied = (capability: Capability, role: Role) =>
  new AppError('PERMISSION_DENIED', `a ${role} grant does not allow this (needs ${capability})`, {
    role,
    needs: capability,
  });

/** What a read-only credential's holder does to write instead, by kind of credential. */
const WRITE_INSTEAD: Partial<Record<Principal['kind'], string>> = {
  mcp_oauth: 'sign in again from the app (reconnect it) and choose "Read and write" on the consent page',
  api_key: 'use a read-write API key (the dashboard mints one)',
  access_token: 'exchange the identity assertion at /oauth2/token again without scope=drive:read',
};

/**
 * The read-only rule, one for every door: a read-only credential (scope `drive:read`, a read-only API key) reads,
 * lists, searches and finds; anything that writes is 403 CREDENTIAL_READ_ONLY, whatever the caller's role. The doors
 * ask it where they declare what writes (REST: `route()` by method, src/api/http/route.ts; MCP: `defineTool` by the
 * tool's readOnlyHint, src/mcp/tool-kit.ts), before any budget is charged; `authorize(…, 'write')` asks it too.
 */
export function refuseReadOnlyWrite(principal: Principal): void {
  if (!principal.readOnly) return;
  const instead = WRITE_INSTEAD[principal.kind] ?? 'use a credential that may write';
  throw new AppError('CREDENTIAL_READ_ONLY', `this credential is read-only; to write, ${instead}`);
}

const notFoundFor = (r: Resource) =>
  'artId' in r ? new AppError('ARTIFACT_NOT_FOUND', 'no live artifact') : new AppError('NOT_FOUND', 'no live folder');

export async function authorize(
  rc: RequestContext,
  resource: Resource,
  capability: Capability,
  db: Db = rc.app.orm.em.fork(),
): Promise<Access> {
  if (capability === 'write') refuseReadOnlyWrite(rc.principal);
  const target = await loadTarget(db, resource);
  if (!target) throw notFoundFor(resource);
  const base = 'artId' in resource ? { artifact: target as ArtifactRow } : { folder: target as FolderRef };
  if (target.drive_id === rc.principal.driveId || (await ownedByPerson(db, rc.principal, target.drive_id)))
    return { driveId: target.drive_id, owner: true, role: 'owner', publicOnly: false, ...base };
  const found = await effectiveRole(db, rc, target, 'artId' in resource ? 'artifact' : 'folder');
  if (!found) throw notFoundFor(resource);
  const { role, publicOnly } = found;
  if (!roleCan(role, capability)) throw permissionDenied(capability, role);
  return { driveId: target.drive_id, owner: false, role, publicOnly, ...base };
}

/**
 * The rule for a record that hangs off a resource (a grant, a share link): a caller who may not
 * even read the resource gets the record's own 404 (`notFound`), so it learns nothing of either.
 */
export async function authorizeThrough(
  rc: RequestContext,
  resource: Resource,
  capability: Capability,
  notFound: () => AppError,
  db?: Db,
): Promise<Access> {
  try {
    return await authorize(rc, resource, capability, db);
  } catch (err) {
    if (err instanceof AppError && err.status === 404) throw notFound();
    throw err;
  }
}

/**
 * The drive an operation acts on for a resource named by id: the caller's own when the resource is
 * there, else the owner's, if the caller's grants allow `capability` (404 / 403 as above).
 */
export async function driveFor(
  rc: RequestContext,
  resource: Resource,
  capability: Capability,
  db?: Db,
): Promise<string> {
  return (await authorize(rc, resource, capability, db)).driveId;
}

/**
 * A signed-in person owns every drive their web account claimed (issue 55), not only the one the page acts as: their
 * browser session holds each of those drives' capabilities.
 */
async function ownedByPerson(db: Db, principal: Principal, driveId: string): Promise<boolean> {
  const userId = webSessionUser(principal);
  if (!userId) return false;
  return !!(await one(db, `select 1 from drives where id = ? and owner_user_id = ? and deleted_at is null`, [
    driveId,
    userId,
  ]));
}

/** The web account behind a browser session's principal (its credential id is `web:<user id>`), else undefined. */
export const webSessionUser = (principal: Principal): string | undefined =>
  principal.kind === 'web_session' && principal.credentialId.startsWith('web:')
    ? principal.credentialId.slice(4)
    : undefined;

async function loadTarget(db: Db, r: Resource): Promise<(ArtifactRow | FolderRef) | undefined> {
  if ('artId' in r)
    return one<ArtifactRow>(db, `select * from artifacts where id = ? and deleted_at is null`, [r.artId]);
  return one<FolderRef>(
    db,
    `select id, drive_id, path, inherit_grants from folders where id = ? and deleted_at is null`,
    [r.fldId],
  );
}

/** Who a credential stands for, as grants name principals. */
export interface CallerPrincipals {
  identityId: string | null;
  userId: string | null;
  email: string | null;
  orgId: string | null;
}

/**
 * The drive's owner email stands for the caller only while it is proven: a drive claimed by a web
 * account counts it once the account's address is verified; a drive with no web account got it
 * from a verifying provider (ID-JAG) or the operator.
 */
export async function callerPrincipals(db: Db, rc: RequestContext): Promise<CallerPrincipals> {
  const me = await one<{ owner_user_id: string | null; email: string | null; organization_id: string | null }>(
    db,
    `select d.owner_user_id, d.organization_id,
            case when d.owner_user_id is null or u.email_verified_at is not null then lower(d.owner_email) end as email
       from drives d left join human_users u on u.id = d.owner_user_id where d.id = ?`,
    [rc.principal.driveId],
  );
  return {
    identityId: rc.principal.identityId,
    userId: me?.owner_user_id ?? null,
    email: me?.email ?? null,
    orgId: me?.organization_id ?? null,
  };
}

/** SQL condition (grants aliased `g`) for "this grant names one of the caller's principals", with its parameters. */
export function principalMatch(p: CallerPrincipals): [string, unknown[]] {
  return [
    `(g.principal_type = 'anyone'
      or (g.principal_type = 'agent' and g.principal_id = ?)
      or (g.principal_type = 'user' and (g.principal_id = ? or g.principal_email = ?))
      or (g.principal_type = 'org' and g.principal_id = ?))`,
    [p.identityId ?? '', p.userId ?? '', p.email ?? '', p.orgId ?? ''],
  ];
}

export const LIVE_GRANT = `g.revoked_at is null and (g.expires_at is null or g.expires_at > clock_timestamp())`;

/**
 * The best role the caller's live grants give on a resource of a live drive, or undefined.
 * Ancestor folders come from the resource's path; a grant on ancestor F counts when no folder
 * below F on the way down (the target folder included) has `inherit_grants` off.
 */
async function effectiveRole(
  db: Db,
  rc: RequestContext,
  target: ArtifactRow | FolderRef,
  kind: 'artifact' | 'folder',
): Promise<{ role: Role; publicOnly: boolean } | undefined> {
  const [match, matchParams] = principalMatch(await callerPrincipals(db, rc));
  const inheritsFromAbove = kind === 'artifact' || (target as FolderRef).inherit_grants;
  const found = await rows<{ role: Role; principal_type: string }>(
    db,
    `with chain as (
       select id, path, inherit_grants from folders
        where drive_id = ? and deleted_at is null and starts_with(?, path || '/')
     )
     select g.role, g.principal_type from grants g join drives d on d.id = g.drive_id and d.deleted_at is null
      where g.drive_id = ? and ${LIVE_GRANT} and ${match}
        and (g.art_id = ? or g.fld_id = ?
             or (? and g.fld_id in (select c.id from chain c
                                     where not exists (select 1 from chain c2 where length(c2.path) > length(c.path) and not c2.inherit_grants))))`,
    [
      target.drive_id,
      target.path,
      target.drive_id,
      ...matchParams,
      kind === 'artifact' ? target.id : '',
      kind === 'folder' ? target.id : '',
      inheritsFromAbove,
    ],
  );
  let best: Role | undefined;
  for (const { role } of found) if (!best || roleRank(role) > roleRank(best)) best = role;
  return best && { role: best, publicOnly: found.every((g) => g.principal_type === 'anyone') };
}

/**
 * For listing a folder the caller reads through a grant: the descendant folders whose contents it
 * may not see (those with `inherit_grants` off, and everything below them). Empty for the owner.
 */
export async function hiddenSubfolders(db: Db, access: Access): Promise<string[]> {
  if (access.owner || !access.folder) return [];
  const found = await rows<{ path: string }>(
    db,
    `select path from folders where drive_id = ? and deleted_at is null and not inherit_grants and starts_with(path, ?)`,
    [access.driveId, `${access.folder.path}/`],
  );
  return found.map((f) => f.path);
}
