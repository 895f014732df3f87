import { iso } from '../../lib/time.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { one, rows, transaction, type Db } from '../../db/sql.js';
import { refuseReadOnlyWrite } from '../../access/authorize.js';
import type { RequestContext } from '../../platform/request-context.js';
import { checkGlob, coversMeet, coverTouches, LEASE_MAX_PATHS, type LeaseCover } from './lease-coverage.js';
import { coverOf, LEASE_COLUMNS, leaseLockKey, leaseLockSql, LIVE, type LeaseRow } from './lease-guard.js';

/**
 * Leases (issue 56, docs/decisions/leases.md): an agent takes exclusive or shared hold of paths, a prefix or a glob for
 * a while, and gets a fence, the drive's next number. A grant takes the drive's lease lock exclusively, so it waits for
 * writes that checked leases without seeing it and is seen by every write after it (src/files/leases/lease-guard.ts).
 */
export const LEASE_TTL_MIN_S = 5;
export const LEASE_TTL_MAX_S = 3600;
/** Live leases per drive; a grant past it is refused. */
export const LEASE_MAX_LIVE = 1000;
/** How long a lapsed or released lease is kept, so that a write with an older fence is still refused. */
const KEPT_DAYS = 7;

export interface LeaseRequest {
  paths?: string[];
  prefix?: string;
  glob?: string;
  mode: 'exclusive' | 'shared';
  ttlS: number;
  note?: string;
}

const bare = (p: string) => p.replace(/^\/+/, '');

function coverOfRequest(r: LeaseRequest): LeaseCover {
  const paths = [...new Set((r.paths ?? []).map(bare).filter(Boolean))];
  const prefix = r.prefix !== undefined ? bare(r.prefix) : null;
  const glob = r.glob !== undefined ? checkGlob(r.glob) : null;
  if (paths.length > LEASE_MAX_PATHS) throw new AppError('INVALID_LEASE', `at most ${LEASE_MAX_PATHS} paths`);
  if (prefix === '') throw new AppError('INVALID_LEASE', 'prefix must not be empty (a lease on the whole drive)');
  if (!paths.length && prefix === null && glob === null)
    throw new AppError('INVALID_LEASE', 'a lease needs paths, a prefix or a glob');
  return { paths, prefix, glob };
}

const ttlOf = (s: number) => {
  if (!Number.isInteger(s) || s < LEASE_TTL_MIN_S || s > LEASE_TTL_MAX_S)
    throw new AppError('INVALID_LEASE', `ttl_s must be an integer from ${LEASE_TTL_MIN_S} to ${LEASE_TTL_MAX_S}`);
  return s;
};

export const conflictOf = (r: LeaseRow) => ({
  lease_id: r.id,
  mode: r.mode,
  holder: { actor: r.holder_actor, credential: r.holder_credential },
  expires_at: iso(r.expires_at)!,
  covers: coverOf(r),
});

/** POST /v0/leases: 201 with the lease and its fence, or 409 LEASE_CONFLICT naming the live leases in the way. */
export async function acquireLease(rc: RequestContext, req: LeaseRequest): Promise<LeaseRow> {
  refuseReadOnlyWrite(rc.principal);
  const cover = coverOfRequest(req);
  const ttl = ttlOf(req.ttlS);
  const driveId = rc.driveId;
  return transaction(rc.app, async (tx) => {
    await one(tx, leaseLockSql('exclusive'), [leaseLockKey(driveId)]);
    await one(
      tx,
      `delete from leases where drive_id = ? and expires_at < clock_timestamp() - make_interval(days => ?)`,
      [driveId, KEPT_DAYS],
    );
    const live = await rows<LeaseRow>(tx, `select ${LEASE_COLUMNS} from leases where drive_id = ? and ${LIVE}`, [
      driveId,
    ]);
    if (live.length >= LEASE_MAX_LIVE)
      throw new AppError('LEASE_LIMIT_REACHED', `the drive already holds ${LEASE_MAX_LIVE} live leases`);
    const conflicts = live.filter(
      (l) => (l.mode === 'exclusive' || req.mode === 'exclusive') && coversMeet(coverOf(l), cover),
    );
    if (conflicts.length)
      throw new AppError('LEASE_CONFLICT', `${conflicts.length} live lease(s) hold what this lease would cover`, {
        conflicts: conflicts.slice(0, 20).map(conflictOf),
      });
    const counter = await one<{ last_fence: string }>(
      tx,
      `insert into lease_fences (drive_id, last_fence) values (?, 1)
       on conflict (drive_id) do update set last_fence = lease_fences.last_fence + 1 returning last_fence`,
      [driveId],
    );
    return (await one<LeaseRow>(
      tx,
      `insert into leases (id, drive_id, fence, mode, paths, prefix, glob, holder_actor, holder_credential, holder_kind,
         note, expires_at)
       values (?, ?, ?, ?, array(select jsonb_array_elements_text(?::jsonb)), ?, ?, ?, ?, ?, ?,
         clock_timestamp() + make_interval(secs => ?))
       returning ${LEASE_COLUMNS}`,
      [
        newId('lse'),
        driveId,
        counter!.last_fence,
        req.mode,
        JSON.stringify(cover.paths),
        cover.prefix,
        cover.glob,
        rc.actor,
        rc.principal.credentialName ?? rc.principal.credentialId,
        rc.principal.kind,
        req.note ?? null,
        ttl,
      ],
    ))!;
  });
}

async function liveLease(rc: RequestContext, leaseId: string) {
  const row = await one<LeaseRow>(
    rc.app.orm.em.fork(),
    `select ${LEASE_COLUMNS} from leases where id = ? and drive_id = ?`,
    [leaseId, rc.driveId],
  );
  if (!row) throw new AppError('LEASE_NOT_FOUND', 'no such lease on this drive');
  if (!row.live)
    throw new AppError('LEASE_EXPIRED', `lease ${leaseId} ${row.released_at ? 'was released' : 'lapsed'}`, {
      expires_at: iso(row.expires_at)!,
    });
  return row;
}

/** POST /v0/leases/{id}/renew: a live lease lives ttl_s more seconds from now; its fence is unchanged. */
export async function renewLease(rc: RequestContext, leaseId: string, ttlS: number): Promise<LeaseRow> {
  refuseReadOnlyWrite(rc.principal);
  const ttl = ttlOf(ttlS);
  await liveLease(rc, leaseId);
  const row = await one<LeaseRow>(
    rc.app.orm.em.fork(),
    `update leases set expires_at = clock_timestamp() + make_interval(secs => ?)
     where id = ? and drive_id = ? and ${LIVE} returning ${LEASE_COLUMNS}`,
    [ttl, leaseId, rc.driveId],
  );
  // It lapsed between the read and the update.
  if (!row) return liveLease(rc, leaseId);
  return row;
}

/** DELETE /v0/leases/{id}: ends a lease now; its fence stays spent. Releasing an ended lease changes nothing. */
export async function releaseLease(rc: RequestContext, leaseId: string): Promise<LeaseRow> {
  refuseReadOnlyWrite(rc.principal);
  const row = await one<LeaseRow>(
    rc.app.orm.em.fork(),
    `update leases set released_at = coalesce(released_at, clock_timestamp())
     where id = ? and drive_id = ? returning ${LEASE_COLUMNS}`,
    [leaseId, rc.driveId],
  );
  if (!row) throw new AppError('LEASE_NOT_FOUND', 'no such lease on this drive');
  return row;
}

/** GET /v0/leases?path=: the live leases of the drive, or those that cover `path`. */
export const listLeases = (rc: RequestContext, path?: string): Promise<LeaseRow[]> =>
  leasesCovering(rc.app.orm.em.fork(), rc.driveId, path);

/** The live leases of a drive that cover `path` (a file, or anything under it as a folder); all of them without one. */
export async function leasesCovering(db: Db, driveId: string, path?: string): Promise<LeaseRow[]> {
  const live = await rows<LeaseRow>(
    db,
    `select ${LEASE_COLUMNS} from leases where drive_id = ? and ${LIVE} order by fence`,
    [driveId],
  );
  if (path === undefined) return live;
  const target = bare(path).replace(/\/+$/, '');
  return live.filter(
    (l) => coverTouches(coverOf(l), { path: target }) || coverTouches(coverOf(l), { under: `${target}/` }),
  );
}

/** MCP `lease`: one tool for the three lease operations. */
export async function holdLease(
  rc: RequestContext,
  op: { action: 'acquire' | 'renew' | 'release'; leaseId?: string; request: LeaseRequest },
): Promise<LeaseRow> {
  if (op.action === 'acquire') return acquireLease(rc, op.request);
  if (!op.leaseId) throw new AppError('INVALID_LEASE', `${op.action} needs lease_id`);
  return op.action === 'renew' ? renewLease(rc, op.leaseId, op.request.ttlS) : releaseLease(rc, op.leaseId);
}
