import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { STATE_DIR } from './local-scan.js';

/**
 * What two-way sync last agreed with the drive, kept in `<dir>/.agent-drive/state.json` (docs/decisions/sync.md):
 * the feed seq read up to, and per drive path the local name, artifact id, version and content hash both sides had.
 * Written atomically (a temp file renamed over it), so a crash leaves the old state or the new one.
 */
export interface SyncedFile {
  local: string;
  art_id: string;
  version: number;
  hash: string;
}

export interface SyncState {
  /** The drive path prefix this folder syncs with. */
  prefix: string;
  /** The feed seq the last pass had seen (the watcher resumes the change feed after it). */
  seq: number | null;
  files: Record<string, SyncedFile>;
}

const stateFile = (dir: string) => path.join(dir, STATE_DIR, 'state.json');

export async function loadState(dir: string, prefix: string): Promise<SyncState> {
  const text = await readFile(stateFile(dir), 'utf8').catch(() => undefined);
  if (!text) return { prefix, seq: null, files: {} };
  const state = JSON.parse(text) as SyncState;
  if (state.prefix !== prefix)
    throw new Error(`${dir} syncs with "${state.prefix}", not "${prefix}" (remove ${STATE_DIR}/ to start over)`);
  return state;
}

export async function saveState(dir: string, state: SyncState): Promise<void> {
  await mkdir(path.join(dir, STATE_DIR), { recursive: true });
  const tmp = `${stateFile(dir)}.${randomUUID()}.tmp`;
  await writeFile(tmp, JSON.stringify(state));
  await rename(tmp, stateFile(dir));
}
