import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { AppError } from '../lib/errors.js';
import type { Principal } from './request-context.js';

/**
 * The run a request's changes belong to (issue 38, docs/decisions/runs.md). A door computes it once per request
 * (`runFor`) and runs the request inside `withRun`; the event writer reads it with `currentRun()` and writes it in
 * the event's own INSERT, so recording runs costs no extra statement per write.
 */
export interface RunScope {
  runId: string;
  credentialKind: Principal['kind'];
  /** The drive of the credential that asked: its changes on another drive (a grant) are filed apart (runColumns). */
  home?: string;
  /** The credential's name (API key label, OAuth app name): a run is shown by it when no X-Drive-Actor named one. */
  name?: string | null;
}

const scope = new AsyncLocalStorage<RunScope>();

export const withRun = <T>(run: RunScope, fn: () => T): T => scope.run(run, fn);
export const currentRun = (): RunScope | undefined => scope.getStore();
/**
 * An event row's run columns (run_id, credential_kind) for `run` on `driveId`: both null for the service's own work.
 * Run ids are per principal (issue 54): a grantee writing on someone else's drive files its changes under its run id
 * qualified by its own drive (`<id>:<last 12 of its drive id>`), so `X-Drive-Run-Id: <the owner's run>` cannot join
 * the owner's run or rename its actor; the owner's own runs keep their plain ids.
 */
export function runColumns(run: RunScope | undefined, driveId: string): [string | null, string | null, string | null] {
  if (!run) return [null, null, null];
  const name = run.name ?? null;
  if (!run.home || run.home === driveId) return [run.runId, run.credentialKind, name];
  const tag = `:${run.home.slice(-12)}`;
  return [`${run.runId.slice(0, 64 - tag.length)}${tag}`, run.credentialKind, name];
}

const RUN_ID = /^[A-Za-z0-9_.:-]{1,64}$/;
/** A run idle this long ends; the credential's next change starts a new one. */
export const RUN_IDLE_MS = 10 * 60 * 1000;
const MAX_TRACKED = 10_000;

/** Per credential: the default run it writes under and when it last asked (this process only). */
const idleRuns = new Map<string, { runId: string; at: number }>();

export function checkRunId(value: string): string {
  if (!RUN_ID.test(value))
    throw new AppError('INVALID_RUN_ID', 'X-Drive-Run-Id must be 1-64 characters of [A-Za-z0-9_.:-]');
  return value;
}

const freshRunId = () => `run_${Date.now().toString(36)}${randomBytes(6).toString('hex')}`;

/**
 * The header wins; else one run per credential and MCP session; else one per credential that ends after ten idle
 * minutes.
 */
export function runFor(
  principal: Principal,
  opts: { header?: string; mcpSession?: string },
  now = Date.now(),
): RunScope {
  const credentialKind = principal.kind;
  const home = principal.driveId || undefined;
  const name = principal.credentialName?.slice(0, 200) || null;
  if (opts.header !== undefined) return { runId: checkRunId(opts.header.trim()), credentialKind, home, name };
  if (opts.mcpSession) {
    const tag = opts.mcpSession.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 40);
    return { runId: `mcp_${principal.credentialId.slice(-12)}.${tag}`.slice(0, 64), credentialKind, home, name };
  }
  const key = `${principal.driveId}/${principal.credentialId}`;
  const last = idleRuns.get(key);
  const runId = last && now - last.at < RUN_IDLE_MS ? last.runId : freshRunId();
  idleRuns.delete(key);
  idleRuns.set(key, { runId, at: now });
  // Oldest first in insertion order: drop the longest idle once the map is full.
  if (idleRuns.size > MAX_TRACKED) idleRuns.delete(idleRuns.keys().next().value!);
  return { runId, credentialKind, home, name };
}

/** A run id made by the service for its own work (a revert, a rewind). */
export const serviceRunId = (kind: 'revert' | 'rewind') => `${kind}_${freshRunId().slice(4)}`;
