import type { RequestContext } from '../platform/request-context.js';
import { boundedDiff } from './edit.js';
import { readArtifactText } from './text.js';

/**
 * What changed between two versions of a text artifact (the web's version history; any door may use it): the unified
 * diff of `from` → `to`, bounded as an edit's diff is (src/files/edit.ts: time, edit length, input and output size).
 * Reading each version goes through the one rule, so a public artifact's older versions stay private.
 */
export interface VersionDiff {
  path: string;
  from: number;
  to: number;
  diff: string;
}

export async function diffVersions(rc: RequestContext, artId: string, from: number, to: number): Promise<VersionDiff> {
  const [a, b] = await Promise.all([
    readArtifactText(rc, { artId, versionNumber: from }),
    readArtifactText(rc, { artId, versionNumber: to }),
  ]);
  return { path: b.blob.path, from, to, diff: boundedDiff(b.blob.path, from, a.text, b.text, `v${to}`, `v${from}`) };
}
