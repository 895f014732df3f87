import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { DriveClient } from '../../client.js';
import { DriveError } from '../../errors.js';
import { suggestPaths } from '../../names.js';
import { scanLocal, type LocalFile } from './local-scan.js';
import {
  deleteRemote,
  download,
  isStale,
  listRemote,
  moveRemote,
  newestSeq,
  upload,
  type RemoteFile,
} from './remote.js';
import type { SyncState } from './state.js';

/**
 * One two-way pass (docs/decisions/sync.md): the local folder, the drive under the prefix and the state of the last
 * agreement, compared per drive path. A side that differs from the state changed; one side changed → it wins;
 * both → a three-way merge on the server against the agreed version, and when that conflicts (or is binary) the
 * local bytes go to `name (conflict from <machine> <time>).ext` beside it and the drive's version comes down.
 * Edits win over deletes. Renames: by artifact id from the drive, by content hash locally.
 */
export interface PassReport {
  up: string[];
  down: string[];
  deleted: string[];
  moved: string[];
  merged: string[];
  conflicts: string[];
  /** Writes the drive refused because it moved on meanwhile: the next pass retries them. */
  stale: number;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The local file name, sent only when the drive path differs from it (X-Drive-Filename). */
const nameIfMapped = (rel: string, p: string) =>
  path.posix.basename(rel) === path.posix.basename(p) ? undefined : path.posix.basename(rel);

export function conflictName(rel: string, machine = hostname(), at = new Date()): string {
  const ext = path.posix.extname(rel);
  const stem = rel.slice(0, rel.length - ext.length);
  const time = at
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
  return `${stem} (conflict from ${machine} ${time})${ext}`;
}

export async function syncPass(client: DriveClient, dir: string, state: SyncState, all: boolean) {
  const report: PassReport = { up: [], down: [], deleted: [], moved: [], merged: [], conflicts: [], stale: 0 };
  const prefix = state.prefix;
  const seq = await newestSeq(client);
  const remote = await listRemote(client, prefix ? `${prefix}/` : '');
  const local = await scanLocal(dir, all);
  const fileOf = (rel: string) => path.join(dir, ...rel.split('/'));
  const toPath = (name: string) => [prefix, name].filter(Boolean).join('/');
  // Local names → drive paths: the agreed ones from the state, new ones by the server's name rule.
  const pathOfLocal = new Map(Object.entries(state.files).map(([p, f]) => [f.local, p]));
  const fresh = [...local.keys()].filter((rel) => !pathOfLocal.has(rel));
  const named = await suggestPaths(client, fresh);
  fresh.forEach((rel, i) => pathOfLocal.set(rel, toPath(named[i].path)));
  const localAt = new Map<string, LocalFile>();
  for (const [rel, f] of local) localAt.set(pathOfLocal.get(rel)!, f);
  const localNameOf = (r: RemoteFile) => {
    const rel = prefix ? r.path.slice(prefix.length + 1) : r.path;
    // A kept file name only stands for a mapped one (a plain name is its own path, and survives a move unchanged).
    const mapped = r.filename && r.filename !== path.posix.basename(rel) && !/^[A-Za-z0-9_.-]+$/.test(r.filename);
    return mapped ? path.posix.join(path.posix.dirname(rel), r.filename!) : rel;
  };

  /** Writes the drive's bytes to `rel`, unless the local file changed since the scan (the next pass sees that). */
  const bringDown = async (r: RemoteFile, rel: string, expectHash: string | undefined): Promise<void> => {
    const now = await readFile(fileOf(rel)).catch(() => undefined);
    if ((now ? sha256(now) : undefined) !== expectHash) return;
    const bytes = await download(client, r.art_id);
    await mkdir(path.dirname(fileOf(rel)), { recursive: true });
    const tmp = path.join(dir, '.agent-drive', `down-${process.pid}-${Date.now()}`);
    await mkdir(path.dirname(tmp), { recursive: true });
    await writeFile(tmp, bytes);
    // Checked again right before the swap: an edit made during the download is not overwritten.
    const again = await readFile(fileOf(rel)).catch(() => undefined);
    if ((again ? sha256(again) : undefined) !== expectHash) return void (await rm(tmp, { force: true }));
    await rename(tmp, fileOf(rel));
    state.files[r.path] = { local: rel, art_id: r.art_id, version: r.version, hash: sha256(bytes) };
    report.down.push(r.path);
  };

  const agreed = (r: RemoteFile, rel: string, hash = r.hash) =>
    (state.files[r.path] = { local: rel, art_id: r.art_id, version: r.version, hash });

  /** Both sides changed and did not merge: keep the local bytes beside it, bring the drive's version down. */
  const keepBoth = async (p: string, l: LocalFile, r: RemoteFile) => {
    const rel = conflictName(l.rel);
    const [copyPath] = await suggestPaths(client, [rel]);
    await mkdir(path.dirname(fileOf(rel)), { recursive: true });
    await writeFile(fileOf(rel), l.bytes);
    const up = await upload(client, toPath(copyPath.path), l.bytes, {
      filename: path.posix.basename(rel),
      metadata: { conflict_of: p },
    });
    agreed(up, rel, l.hash);
    report.conflicts.push(up.path);
    await bringDown(r, l.rel, l.hash);
  };

  // Renames first, so the paths compared below are the same on both sides.
  const byArtId = new Map([...remote.values()].map((r) => [r.art_id, r]));
  for (const [p, s] of Object.entries(state.files)) {
    const r = byArtId.get(s.art_id);
    if (r && r.path !== p && !state.files[r.path]) {
      // Moved on the drive: move the local file along (its local edits go with it).
      const rel = localNameOf(r);
      const l = local.get(s.local);
      if (l && !local.has(rel)) {
        await mkdir(path.dirname(fileOf(rel)), { recursive: true });
        await rename(l.file, fileOf(rel));
        local.delete(s.local);
        local.set(rel, { ...l, rel, file: fileOf(rel) });
        localAt.delete(p);
        localAt.set(r.path, local.get(rel)!);
      } else if (l && rel !== s.local && l.hash === s.hash) {
        // The new name is taken already: the unchanged file under the old name is the moved one's leftover.
        await rm(l.file, { force: true });
        local.delete(s.local);
        localAt.delete(p);
      }
      delete state.files[p];
      state.files[r.path] = { ...s, local: rel };
      report.moved.push(`${p} → ${r.path}`);
      continue;
    }
    if (local.has(s.local) || r?.path !== p || r.version !== s.version) continue;
    // Gone locally, the drive unchanged: a new local file with the same bytes at an unknown path is a local move.
    const moved = [...local.values()].find(
      (l) => l.hash === s.hash && !state.files[pathOfLocal.get(l.rel)!] && !remote.has(pathOfLocal.get(l.rel)!),
    );
    const to = moved && pathOfLocal.get(moved.rel)!;
    // A move keeps the drive's file name: a mapped name (not its own path) travels as a delete and a create instead.
    if (!moved || !to || nameIfMapped(moved.rel, to) !== undefined) continue;
    try {
      const m = await moveRemote(client, s.art_id, to, s.version);
      delete state.files[p];
      agreed(m, moved.rel, s.hash);
      remote.delete(p);
      remote.set(to, m);
      report.moved.push(`${p} → ${to}`);
    } catch (err) {
      if (!isStale(err)) throw err;
      report.stale++;
    }
  }

  const paths = new Set([...Object.keys(state.files), ...remote.keys(), ...localAt.keys()]);
  for (const p of [...paths].sort()) {
    const s = state.files[p];
    const r = remote.get(p);
    const l = localAt.get(p) ?? (s ? local.get(s.local) : undefined);
    const localChanged = s ? l?.hash !== s.hash : !!l;
    const remoteChanged = s ? !r || r.art_id !== s.art_id || r.version !== s.version : !!r;
    try {
      if (!localChanged && !remoteChanged) continue;
      if (l && r && l.hash === r.hash) {
        agreed(r, l.rel);
      } else if (localChanged && !remoteChanged) {
        if (l) {
          const up = await upload(client, p, l.bytes, {
            ifMatch: r ? s?.version : undefined,
            filename: nameIfMapped(l.rel, p),
          });
          agreed(up, l.rel, l.hash);
          report.up.push(p);
        } else {
          if (r) await deleteRemote(client, r.art_id, s!.version);
          delete state.files[p];
          report.deleted.push(p);
        }
      } else if (!localChanged && remoteChanged) {
        if (r) await bringDown(r, s?.local ?? localNameOf(r), l?.hash);
        else {
          const now = await readFile(fileOf(s!.local)).catch(() => undefined);
          if (now && sha256(now) !== s!.hash) continue; // edited meanwhile: the next pass uploads it
          await rm(fileOf(s!.local), { force: true });
          delete state.files[p];
          report.deleted.push(p);
        }
      } else if (!l && r) {
        await bringDown(r, s?.local ?? localNameOf(r), undefined); // an edit wins over a delete
      } else if (l && !r) {
        const up = await upload(client, p, l.bytes, { filename: nameIfMapped(l.rel, p) });
        agreed(up, l.rel, l.hash);
        report.up.push(p);
      } else if (l && r && s) {
        try {
          const up = await upload(client, p, l.bytes, { ifMatch: s.version, merge: true });
          report.merged.push(p);
          if (up.hash === l.hash) agreed(up, l.rel, l.hash);
          else {
            state.files[p] = { ...s, local: l.rel };
            await bringDown(up, l.rel, l.hash);
          }
        } catch (err) {
          if (!(err instanceof DriveError) || (err.code !== 'MERGE_CONFLICT' && err.code !== 'PRECONDITION_FAILED'))
            throw err;
          await keepBoth(p, l, r);
        }
      } else if (l && r) {
        await keepBoth(p, l, r); // created on both sides with different bytes
      } else delete state.files[p];
    } catch (err) {
      if (!isStale(err)) throw err;
      report.stale++;
    }
  }
  state.seq = Math.max(state.seq ?? 0, seq);
  return report;
}
