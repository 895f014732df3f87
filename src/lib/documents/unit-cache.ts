import { extname } from 'node:path';
import { LRUCache } from 'lru-cache';
import { documentUnits } from '../extract.js';
import type { Unit } from './units.js';

/**
 * The units of documents read lately, so paging through a deck or a workbook (MCP `read unit=`, GET …/text, the viewer)
 * extracts it once, not once per unit: each extraction starts a boxed child process and reads the bytes again.
 * Keyed by the artifact, its content hash and what decides the extractor (content type, extension): a new version is a
 * new key, and an artifact's readers never learn what another artifact's readers read. Bounded by the characters held;
 * concurrent reads of one document share one extraction (lru-cache's fetch).
 */
const MAX_CHARS = 32 * 1024 * 1024;

interface Source {
  contentType: string;
  path: string;
  bytes: () => Promise<Buffer>;
}

let extractions = 0;

const cache = new LRUCache<string, Unit[], Source>({
  maxSize: MAX_CHARS,
  sizeCalculation: (units) =>
    Math.max(
      1,
      units.reduce((n, u) => n + u.text.length, 0),
    ),
  fetchMethod: async (_key, _stale, { context }) => {
    extractions++;
    return documentUnits(context.contentType, context.path, await context.bytes());
  },
});

/** How many extractions the cache has run in this process (a test reads it; so could a metric). */
export const unitCacheExtractions = (): number => extractions;

/** documentUnits of the artifact's blob, from the cache when this version was read lately. */
export async function cachedDocumentUnits(
  blob: { artId: string; hash: string; contentType: string; path: string },
  bytes: () => Promise<Buffer>,
): Promise<Unit[]> {
  const key = [blob.artId, blob.hash, blob.contentType, extname(blob.path).toLowerCase()].join('\0');
  return (await cache.fetch(key, { context: { contentType: blob.contentType, path: blob.path, bytes } })) ?? [];
}
