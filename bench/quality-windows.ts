import type pg from 'pg';
import { LocalEmbedder } from '../src/search/local-embedder.js';
import { dedupe } from './quality-metrics.js';

/**
 * How a passage longer than the model's window (256 word pieces) is embedded, measured on the bench's own passages
 * (issue 53), each way ranked exactly in the bench by the same query vectors (a page scores by its best passage):
 * the service's vectors (`lead-and-windows`, token-windows.ts: the first window's unit vector plus the unit average of
 * all windows, normalised), the first window only (embedded here), and the average of all windows alone (recovered
 * from the two: with b = (f + m)/|f + m| and f, m unit vectors, m = 2(b·f)b − f).
 */
export interface WindowLists {
  windows: string[][];
  firstWindow: string[][];
  /** The service's own vectors. */
  blend: string[][];
  /** Passages longer than one window: where the two differ. */
  longPassages: number;
}

export async function windowComparison(
  admin: pg.Pool,
  driveId: string,
  queries: string[],
  limit: number,
  log: (line: string) => void,
): Promise<WindowLists> {
  const { rows } = await admin.query<{ doc: string; text: string; bytes: Buffer }>(
    `select p.art_id as doc, p.text, p.embedding_bytes as bytes from search_passages p
      where p.drive_id = $1 and p.embedding_bytes is not null order by p.art_id, p.ord`,
    [driveId],
  );
  const served = rows.map((r) => {
    const v = new Float32Array(r.bytes.length / 4);
    for (let i = 0; i < v.length; i++) v[i] = r.bytes.readFloatBE(i * 4);
    return v;
  });
  const queryEmbedder = new LocalEmbedder();
  const first = new LocalEmbedder({ longPassages: 'first-window' });
  try {
    const t = performance.now();
    const firstVectors = (await first.embed(rows.map((r) => r.text))).map((v) => Float32Array.from(v));
    const queryVectors = await queryEmbedder.embed(queries);
    const longPassages = rows.filter((_, i) => dot(served[i]!, firstVectors[i]!) < 0.9999).length;
    log(
      `first-window vectors of ${rows.length} passages in ${((performance.now() - t) / 1000).toFixed(1)} s ` +
        `(${longPassages} longer than one window)`,
    );
    const rank = (vectors: Float32Array[], q: number[]) =>
      dedupe(
        vectors
          .map((v, i) => ({ doc: rows[i]!.doc, score: dot(v, q) }))
          .sort((a, b) => b.score - a.score)
          .map((x) => x.doc),
      ).slice(0, limit);
    const averaged = served.map((b, i) => {
      const f = firstVectors[i]!;
      const bf = dot(b, f);
      const m = b.map((x, d) => 2 * bf * x - f[d]!);
      const norm = Math.sqrt(dot(m, m)) || 1;
      return m.map((x) => x / norm);
    });
    return {
      blend: queryVectors.map((q) => rank(served, q)),
      windows: queryVectors.map((q) => rank(averaged, q)),
      firstWindow: queryVectors.map((q) => rank(firstVectors, q)),
      longPassages,
    };
  } finally {
    await queryEmbedder.close();
    await first.close();
  }
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
