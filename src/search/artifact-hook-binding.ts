import type { AppContext } from '../context.js';
import { onArtifactChanged, type ArtifactChange } from '../drive/artifact-hooks.js';
import { EventAction } from '../drive/events.js';
import type { ArtifactPatch, SearchEngine } from './engine.js';
import { SearchIndexHooks } from './hooks.js';

/**
 * The one subscription that keeps the search index following the artifacts domain: every artifact
 * event heard after commit (src/services/artifact-hooks.ts) becomes SearchIndexHooks calls.
 * Installed by every process that changes artifacts: the API (createApp) and the worker (purges).
 */
export type HookCall = { op: 'content'; versionNumber: number } | { op: 'record'; patch: ArtifactPatch } | { op: 'remove' };

const extensionOf = (path: string) => {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.includes('.') ? base.slice(base.lastIndexOf('.') + 1).toLowerCase() : '';
};

/** What the index must do for one artifact event (docs/decisions.md, Artifacts → Events). */
export function hookCallsFor(change: ArtifactChange): HookCall[] {
  const m = change.metadata;
  switch (change.action) {
    case EventAction.artifactCreated:
    case EventAction.artifactUpdated:
    case EventAction.artifactCopied:
    case EventAction.artifactRestored:
      return [{ op: 'content', versionNumber: typeof m.version_number === 'number' ? m.version_number : 0 }];
    case EventAction.artifactRenamed: {
      // PATCH rename and each artifact of a folder move (cause folder_move) carry `from` and `to`.
      const to = String(m.to ?? m.path);
      const calls: HookCall[] = [{ op: 'record', patch: { path: to } }];
      // file_type and the text extraction follow the extension, so a new extension re-reads the content.
      if (typeof m.from === 'string' && extensionOf(m.from) !== extensionOf(to)) calls.push({ op: 'content', versionNumber: 0 });
      return calls;
    }
    case EventAction.artifactMetadataUpdated: {
      const labels = Array.isArray(m.labels) ? m.labels.map(String) : undefined;
      const metadata = m.metadata && typeof m.metadata === 'object' ? (m.metadata as Record<string, unknown>) : undefined;
      return [{ op: 'record', patch: { labels, metadata } }];
    }
    case EventAction.artifactDeleted:
    case EventAction.artifactPurged:
      return [{ op: 'remove' }];
    default:
      return [];
  }
}

export async function applyHookCall(hooks: SearchIndexHooks, driveId: string, artId: string, call: HookCall): Promise<void> {
  if (call.op === 'content') await hooks.contentChanged(driveId, artId, call.versionNumber);
  else if (call.op === 'record') await hooks.recordChanged(driveId, artId, call.patch);
  else await hooks.removed(driveId, artId);
}

/** The hooks of a process: its Temporal client and task queue, and the configured engine. */
export function createSearchHooks(ctx: AppContext, engine: SearchEngine): SearchIndexHooks {
  return new SearchIndexHooks({
    temporal: ctx.temporal,
    taskQueue: ctx.config.temporal.taskQueue,
    engine,
    background: { onError: (err, artId) => ctx.logger.error({ err, artId }, 'search: indexing signal failed; the sweeper will repair it') },
  });
}

let installed: { uninstall: () => void; hooks: SearchIndexHooks } | undefined;

/**
 * Subscribes the hooks to artifact changes. One binding per process: installing again replaces the
 * previous one (a test process may build several apps), so no change is indexed twice.
 * A failing call is logged by the publisher and repaired by the sweeper (src/search/sweep.ts).
 */
export function bindSearchToArtifacts(hooks: SearchIndexHooks): () => void {
  installed?.uninstall();
  const off = onArtifactChanged(async (change) => {
    for (const call of hookCallsFor(change)) await applyHookCall(hooks, change.driveId, change.artId, call);
  });
  const binding = {
    hooks,
    uninstall: () => {
      off();
      if (installed === binding) installed = undefined;
    },
  };
  installed = binding;
  return binding.uninstall;
}

/** Waits until the bound hooks have sent every queued indexing signal (before closing the Temporal client). */
export async function flushSearchHooks(): Promise<void> {
  await installed?.hooks.flush();
}
