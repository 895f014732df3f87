import { iso, type Timestamp } from '../../lib/time.js';
import { AppError } from '../../lib/errors.js';
import { one, rows as many, type Db } from '../../db/sql.js';
import type { FenceScope } from '../../platform/fence-scope.js';
import { coverTouches, type LeaseCover, type WriteTarget } from './lease-coverage.js';

/**
 * The lease check of every write (issue 56, docs/decisions/leases.md). A write transaction asks it before each
 * recorded change; the first ask of a drive takes the drive's lease lock in shared mode (so a lease being granted waits
 * for the writes that checked without seeing it, and a write after the grant sees it) and reads the leases that can
 * matter: the live ones, and, when a fence is presented, every kept lease with a larger fence.
 */
export interface LeaseRow {
  id: string;
  drive_id: string;
  fence: string;
  mode: 'exclusive' | 'shared';
  paths: string[];
  prefix: string | null;
  glob: string | null;
  holder_actor: string | null;
  holder_credential: string;
  note: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  released_at: Timestamp | null;
  /** Whether it is live by the database's clock when read. */
  live: boolean;
}

export const coverOf = (r: Pick<LeaseRow, 'paths' | 'prefix' | 'glob'>): LeaseCover => ({
  paths: r.paths,
  prefix: r.prefix,
  glob: r.glob,
});

/** The lock a grant takes exclusively and every write's first lease check takes shared, per drive. */
export const leaseLockSql = (mode: 'shared' | 'exclusive') =>
  `select ${mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock'}(hashtextextended(?, 0))`;
// The plain PUT's lease_gate (src/db/migrations/Migration20270106000000_lease_gate.ts) takes this same key.
export const leaseLockKey = (driveId: string) => `lease:${driveId}`;
export const LIVE = `released_at is null and expires_at > clock_timestamp()`;
export const LEASE_COLUMNS = `id, drive_id, fence, mode, paths, prefix, glob, holder_actor, holder_credential, note,
  created_at, expires_at, released_at, (${LIVE}) as live`;

export const holderOf = (r: LeaseRow) => ({ actor: r.holder_actor, credential: r.holder_credential });

export class LeaseGuard {
  private readonly byDrive = new Map<string, LeaseRow[]>();

  constructor(
    private readonly tx: Db,
    private readonly scope: FenceScope | undefined,
  ) {}

  /** Refuses (423 LOCKED, 409 FENCE_STALE) a change of a request to what a lease holds; the service's work passes. */
  async admit(driveId: string, targets: WriteTarget[]): Promise<void> {
    if (!this.scope || !targets.length) return;
    const rows = await this.leasesOf(driveId);
    if (!rows.length) return;
    const { fence } = this.scope;
    for (const target of targets) {
      const touching = rows.filter((r) => coverTouches(coverOf(r), target));
      const newer = fence === null ? [] : touching.filter((r) => Number(r.fence) > fence);
      if (newer.length) {
        const newest = newer.reduce((a, b) => (Number(b.fence) > Number(a.fence) ? b : a));
        throw new AppError(
          'FENCE_STALE',
          `fence ${fence} is older than fence ${newest.fence} granted since on ${describe(target)}: your lease lapsed ` +
            'or was released and another took it; take a new lease and read again before writing',
          { path: describe(target), newest_fence: Number(newest.fence) },
        );
      }
      const holding = touching.find((r) => r.live && !(r.mode === 'exclusive' && Number(r.fence) === fence));
      if (holding)
        throw new AppError(
          'LOCKED',
          `${describe(target)} is held by ${holding.mode} lease ${holding.id} until ${iso(holding.expires_at)!}` +
            (holding.mode === 'exclusive' ? '; send its fence in X-Drive-Fence (MCP: fence)' : ''),
          {
            path: describe(target),
            lease_id: holding.id,
            mode: holding.mode,
            holder: holderOf(holding),
            expires_at: iso(holding.expires_at)!,
          },
        );
    }
  }

  private async leasesOf(driveId: string): Promise<LeaseRow[]> {
    let rows = this.byDrive.get(driveId);
    if (!rows) {
      await one(this.tx, leaseLockSql('shared'), [leaseLockKey(driveId)]);
      rows = await many<LeaseRow>(
        this.tx,
        `select ${LEASE_COLUMNS} from leases where drive_id = ? and ((${LIVE}) or fence > ?)`,
        [driveId, this.scope?.fence ?? Number.MAX_SAFE_INTEGER],
      );
      this.byDrive.set(driveId, rows);
    }
    return rows;
  }
}

const describe = (t: WriteTarget) => ('path' in t ? t.path : `${t.under}*`);

/** The paths a recorded change touches, from its event: artifacts by path, folders by path and everything under. */
export function targetsOfEvent(e: {
  action: string;
  artId?: string | null;
  fldId?: string | null;
  metadata?: Record<string, unknown>;
}): WriteTarget[] {
  if (!GUARDED.has(e.action)) return [];
  const m = e.metadata ?? {};
  const paths = [m.path, m.from, m.to, m.from_path].filter((p): p is string => typeof p === 'string' && p !== '');
  const unique = [...new Set(paths)];
  if (e.fldId && !e.artId) return unique.flatMap((p) => [{ path: p }, { under: `${p.replace(/\/+$/, '')}/` }]);
  return unique.map((path) => ({ path }));
}

/** The changes a lease holds back: an artifact's or folder's content, name, place, metadata or existence. */
const GUARDED = new Set([
  'artifact.created',
  'artifact.updated',
  'artifact.renamed',
  'artifact.metadata_updated',
  'artifact.copied',
  'artifact.deleted',
  'artifact.restored',
  'folder.created',
  'folder.updated',
  'folder.moved',
  'folder.deleted',
]);
