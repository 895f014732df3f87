import { unzipSync } from 'fflate';

/**
 * Archive reading with zip-bomb limits (docs/decisions/document-extraction.md): the central directory's entry count,
 * declared sizes and compression ratios are checked BEFORE any entry is inflated, and only the entries a format needs
 * are inflated. An entry whose header lies about its size is bounded by the extraction box's memory limit.
 */
export interface ZipLimits {
  maxEntries: number;
  maxTotalBytes: number;
  maxEntryBytes: number;
  maxRatio: number;
}

export const ZIP_LIMITS: ZipLimits = {
  maxEntries: 10_000,
  maxTotalBytes: 256 * 1024 * 1024,
  maxEntryBytes: 64 * 1024 * 1024,
  maxRatio: 200,
};

export class BudgetExceeded extends Error {}

export type ZipEntries = Map<string, Uint8Array>;

/** The entries `wanted` names (all when it is absent), after checking the whole archive against the limits. */
export function readZip(bytes: Uint8Array, wanted?: (name: string) => boolean, limits = ZIP_LIMITS): ZipEntries {
  let entries = 0;
  let total = 0;
  const check = (f: { name: string; size: number; originalSize: number }) => {
    entries++;
    total += f.originalSize;
    if (entries > limits.maxEntries) throw new BudgetExceeded(`the archive has over ${limits.maxEntries} entries`);
    if (total > limits.maxTotalBytes)
      throw new BudgetExceeded(`the archive inflates to over ${limits.maxTotalBytes} bytes`);
    if (f.originalSize > limits.maxEntryBytes)
      throw new BudgetExceeded(`entry ${f.name} inflates to over ${limits.maxEntryBytes} bytes`);
    if (f.originalSize > 1024 * 1024 && f.originalSize / Math.max(1, f.size) > limits.maxRatio)
      throw new BudgetExceeded(`entry ${f.name} compresses over ${limits.maxRatio}:1 (a zip bomb)`);
  };
  // First pass: every entry's header, nothing inflated.
  unzipSync(bytes, {
    filter: (f) => {
      check(f);
      return false;
    },
  });
  const out = unzipSync(bytes, { filter: (f) => (wanted ? wanted(f.name) : true) });
  return new Map(Object.entries(out));
}

export const utf8 = (b: Uint8Array | undefined): string => (b ? new TextDecoder().decode(b) : '');

/** Resolves a relationship target against the folder of the part that names it (`word/`, `ppt/slides/`…). */
export function resolvePart(fromPart: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = fromPart.split('/').slice(0, -1);
  for (const seg of target.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.') parts.push(seg);
  }
  return parts.join('/');
}
