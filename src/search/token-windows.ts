/**
 * How a passage longer than the model's window is embedded (docs/decisions/search.md, "The embedded embedding
 * model"). all-MiniLM-L6-v2 reads at most 256 word pieces, [CLS] and [SEP] included, and was trained on short
 * texts; a passage here is ~1,200 cl100k tokens (split.ts), about five windows. `windows`: the passage is cut into
 * windows of up to 254 pieces that overlap by `overlap` pieces (the last one ends at the passage's end, so no
 * window is a short tail), each window is embedded and normalised, and the passage's vector is their average
 * weighted by the pieces each window adds (a piece counts once), normalised. `first-window`: only the first 254
 * pieces count (what a plain truncating encoder does). `lead-and-windows` (the default): the sum of the two,
 * normalised: an opening (a page's summary, a section's heading) counts as much as all of it. The bench measures
 * the three (MRR@10 on 200 man pages: windows 0.850, first window 0.866, lead and windows 0.873).
 */
export type LongPassageMode = 'lead-and-windows' | 'windows' | 'first-window';

export interface Window {
  /** Word-piece ids without [CLS]/[SEP]. */
  ids: number[];
  /** The pieces this window adds to the passage (its weight). */
  weight: number;
}

export function windowsOf(ids: number[], size: number, overlap: number, mode: LongPassageMode): Window[] {
  if (ids.length <= size) return [{ ids, weight: Math.max(ids.length, 1) }];
  if (mode === 'first-window') return [{ ids: ids.slice(0, size), weight: size }];
  // 'windows' and 'lead-and-windows' cut the same windows; they differ in how combineWindows adds them up.
  const step = Math.max(1, size - overlap);
  const out: Window[] = [];
  let covered = 0;
  for (let start = 0; covered < ids.length; start += step) {
    const from = Math.min(start, ids.length - size);
    const to = from + size;
    out.push({ ids: ids.slice(from, to), weight: to - covered });
    covered = to;
  }
  return out;
}

/**
 * The weighted average of unit window vectors, normalised to unit length; with `lead`, the first window's unit vector
 * is added to that average before the last normalisation (`lead-and-windows`).
 */
export function combineWindows(vectors: Float32Array[], weights: number[], dimensions: number, lead = false): number[] {
  const sum = new Float64Array(dimensions);
  vectors.forEach((v, i) => {
    const norm = Math.hypot(...v) || 1;
    const w = weights[i]! / norm;
    for (let d = 0; d < dimensions; d++) sum[d]! += v[d]! * w;
  });
  const norm = Math.hypot(...sum) || 1;
  const mean = Array.from(sum, (x) => x / norm);
  if (!lead || vectors.length < 2) return mean;
  const first = vectors[0]!;
  const firstNorm = Math.hypot(...first) || 1;
  const blended = mean.map((x, d) => x + first[d]! / firstNorm);
  const blendedNorm = Math.hypot(...blended) || 1;
  return blended.map((x) => x / blendedNorm);
}
