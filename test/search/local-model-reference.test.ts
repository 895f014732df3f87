import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../../src/search/local-embedder.js';
import { DEFAULT_MODEL_DIR } from '../../src/search/local-model-files.js';

/**
 * The embedded model against reference values (test/fixtures/local-model/reference.json, written by reference.py
 * beside it): token ids of Hugging Face `tokenizers` (Rust) on 20 varied strings, and the vectors of an independent
 * float64 forward pass of the same checkpoint.
 */
interface Reference {
  texts: { text: string; ids: number[]; vector?: number[] }[];
}
const reference = JSON.parse(
  readFileSync(new URL('../fixtures/local-model/reference.json', import.meta.url), 'utf8'),
) as Reference;
const json = (f: string) => JSON.parse(readFileSync(path.join(DEFAULT_MODEL_DIR, f), 'utf8')) as object;
const embedder = new LocalEmbedder();
afterAll(() => embedder.close());

describe('the embedded model against the reference', () => {
  it('tokenizes as Hugging Face tokenizers does', () => {
    const tokenizer = new Tokenizer(json('tokenizer.json'), json('tokenizer_config.json'));
    for (const { text, ids } of reference.texts) {
      expect(tokenizer.encode(text).ids, text).toEqual(ids);
      // The embedder encodes without the special tokens and adds them per window.
      expect(tokenizer.encode(text, { add_special_tokens: false }).ids, text).toEqual(ids.slice(1, -1));
    }
  });

  it('gives the reference vectors', async () => {
    const rows = reference.texts.filter((r) => r.vector);
    const vectors = await embedder.embed(rows.map((r) => r.text));
    rows.forEach((r, i) => {
      const v = vectors[i]!;
      const cosine = v.reduce((s, x, d) => s + x * r.vector![d]!, 0);
      const worst = Math.max(...v.map((x, d) => Math.abs(x - r.vector![d]!)));
      expect(cosine, r.text).toBeGreaterThan(0.99999);
      expect(worst, r.text).toBeLessThan(2e-4);
    });
  });
});
