import type { SearchDocument } from '../../src/search/engine.js';

/** A search document as the indexer would write it for a plain text file; tests seed the engine with it directly. */
export const searchDoc = (
  driveId: string,
  artId: string,
  path: string,
  preview: string,
  extra: Partial<SearchDocument> = {},
): SearchDocument => ({
  driveId,
  artId,
  path,
  preview,
  contentType: 'text/plain',
  fileType: 'text',
  labels: [],
  metadata: {},
  updatedAt: new Date('2026-05-01T00:00:00Z'),
  versionNumber: 1,
  ...extra,
});
