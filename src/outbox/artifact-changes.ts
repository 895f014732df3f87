/**
 * What an artifact change means to the outbox topics (changeKindOf). The change itself and its after-commit listeners
 * are a process service (src/platform/after-commit.ts); everything that must not be lost goes through the outbox,
 * queued in the change's own transaction (src/outbox/outbox.ts).
 */
export type { ArtifactChange } from '../platform/after-commit.js';

const extensionOf = (path: string) => {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.includes('.') ? base.slice(base.lastIndexOf('.') + 1).toLowerCase() : '';
};

/**
 * What an artifact event changed, for whoever derives data from artifacts (the outbox topics):
 * the content (a new version, a copy, a restore, or a rename to another extension, which changes the
 * file type and the extraction), only the record (rename, move, labels, metadata), or the artifact
 * left (trash, purge). Null for events that change nothing derived (docs/decisions.md, Indexing).
 */
export function changeKindOf(
  action: string,
  metadata: Record<string, unknown>,
): 'content' | 'record' | 'remove' | null {
  switch (action) {
    case 'artifact.created':
    case 'artifact.updated':
    case 'artifact.copied':
    case 'artifact.restored':
      return 'content';
    case 'artifact.renamed':
      return typeof metadata.from === 'string' &&
        extensionOf(metadata.from) !== extensionOf(String(metadata.to ?? metadata.path))
        ? 'content'
        : 'record';
    case 'artifact.metadata_updated':
      return 'record';
    case 'artifact.deleted':
    case 'artifact.purged':
      return 'remove';
    default:
      return null;
  }
}
