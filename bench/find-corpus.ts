import type pg from 'pg';
import type { Passage } from '../src/search/engine.js';
import { dotWithBytes } from '../src/search/semantic-signatures.js';

/**
 * The deterministic corpus of bench:find. Real embeddings are clustered by topic and share a common direction;
 * random unit vectors are not (every point is nearly as far as every other, so any approximate index looks bad
 * and the "exact top 20" is a coin toss among near-ties). So: one topic per artifact (N / 50 topics), a passage's
 * vector = common + topic centroid + its own noise (each N(0, 1) per dimension, normalised), giving cosines of
 * ~0.6 within a topic and ~0.2 across. A query paraphrases one passage: that passage's raw vector plus fresh
 * noise of the same size. Texts: 8 of the topic's 12 words among 32 background words (Zipf over 20,000), and a
 * query's text is 2 of its topic's words, so the lexical leg finds the same topic.
 */
export const PASSAGES_PER_ARTIFACT = 4;
const WORDS_PER_PASSAGE = 40;
const TOPIC_WORDS = 12;
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'ze', 'po', 'da', 'fe', 'gu', 'hi', 'jo', 'be'];

function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
}

function syllableWord(n: number, suffix: string): string {
  let w = '';
  for (let x = n + 7; x > 0; x = Math.floor(x / 16)) w += SYLLABLES[x % 16];
  return `${w}${suffix}`;
}

const BACKGROUND = Array.from({ length: 20_000 }, (_, i) => syllableWord(i, 'n'));
const zipf = BACKGROUND.map((_, i) => 1 / (i + 1));
const zipfCumulative = zipf.map(
  (
    (sum) => (x: number) =>
      (sum += x)
  )(0),
);
const zipfTotal = zipfCumulative.at(-1)!;

function backgroundWord(rand: () => number): string {
  const r = rand() * zipfTotal;
  let lo = 0;
  let hi = zipfCumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (zipfCumulative[mid]! < r) lo = mid + 1;
    else hi = mid;
  }
  return BACKGROUND[lo]!;
}

const topicWord = (topic: number, k: number) => syllableWord(topic * TOPIC_WORDS + k, 'x');

export class FindCorpus {
  readonly artifacts: number;
  readonly topics: number;
  /** Every passage's unit vector, passage i at [i·dims, (i+1)·dims); passage i is ord i % 4 of artifact i / 4. */
  private readonly vectors: Float32Array;
  private readonly raw: Float32Array;
  private readonly queries = random(99);
  private readonly byText = new Map<string, number[]>();

  constructor(
    readonly passages: number,
    readonly dims: number,
  ) {
    this.artifacts = Math.ceil(passages / PASSAGES_PER_ARTIFACT);
    this.topics = Math.max(8, Math.round(passages / 50));
    const rand = random(passages);
    const common = Array.from({ length: dims }, () => gaussian(rand));
    const centroids = Array.from({ length: this.topics }, () => Array.from({ length: dims }, () => gaussian(rand)));
    this.vectors = new Float32Array(passages * dims);
    this.raw = new Float32Array(passages * dims);
    for (let i = 0; i < passages; i++) {
      const c = centroids[this.topicOf(Math.floor(i / PASSAGES_PER_ARTIFACT))]!;
      const v = c.map((x, d) => 0.5 * common[d]! + x + gaussian(rand));
      this.raw.set(v, i * dims);
      this.vectors.set(unit(v), i * dims);
    }
  }

  topicOf(artifact: number): number {
    return (artifact * 7919) % this.topics;
  }

  artifact(a: number): { artId: string; path: string; passages: Passage[] } {
    const rand = random(a * 31 + 7);
    const topic = this.topicOf(a);
    const passages: Passage[] = [];
    let at = 0;
    for (let ord = 0; ord < PASSAGES_PER_ARTIFACT; ord++) {
      const i = a * PASSAGES_PER_ARTIFACT + ord;
      if (i >= this.passages) break;
      const words = Array.from({ length: WORDS_PER_PASSAGE }, (_, w) =>
        w % 5 === 0 ? topicWord(topic, Math.floor(rand() * TOPIC_WORDS)) : backgroundWord(rand),
      );
      const text = words.join(' ');
      const embedding = Array.from(this.vectors.subarray(i * this.dims, (i + 1) * this.dims));
      passages.push({ ord, text, modality: 'text', charStart: at, charEnd: at + text.length, embedding });
      at += text.length + 2;
    }
    return { artId: `art_find${this.passages}_${a}`, path: `${this.folderOf(a)}doc-${a}.md`, passages };
  }

  /** The folder of an artifact's path: one of 50, each about 2 % of the drive. */
  folderOf(artifact: number): string {
    return `topic-${this.topicOf(artifact) % 50}/`;
  }

  /** A new query: a paraphrase of a random passage (its vector plus noise), text from its topic, and its folder. */
  nextQuery(): { text: string; vector: number[]; folder: string } {
    for (;;) {
      const i = Math.floor(this.queries() * this.passages);
      const topic = this.topicOf(Math.floor(i / PASSAGES_PER_ARTIFACT));
      const text = `${topicWord(topic, Math.floor(this.queries() * 6))} ${topicWord(topic, 6 + Math.floor(this.queries() * 6))}`;
      if (this.byText.has(text)) continue;
      const raw = this.raw.subarray(i * this.dims, (i + 1) * this.dims);
      const vector = unit(Array.from(raw, (x) => x + gaussian(this.queries)));
      this.byText.set(text, vector);
      return { text, vector, folder: this.folderOf(Math.floor(i / PASSAGES_PER_ARTIFACT)) };
    }
  }

  queryVector(text: string): number[] | undefined {
    return this.byText.get(text);
  }

  /**
   * The exact ranking's top `k` as `artId#ord` (dot product over every passage, as the exact scan ranks), among the
   * passages of `folder` when given.
   */
  exactTop(vector: number[], k: number, folder?: string): string[] {
    const scores: { i: number; s: number }[] = [];
    for (let i = 0; i < this.passages; i++) {
      if (folder && this.folderOf(Math.floor(i / PASSAGES_PER_ARTIFACT)) !== folder) continue;
      let s = 0;
      const off = i * this.dims;
      for (let d = 0; d < this.dims; d++) s += this.vectors[off + d]! * vector[d]!;
      scores.push({ i, s });
    }
    scores.sort((a, b) => b.s - a.s);
    return scores
      .slice(0, k)
      .map(({ i }) => `art_find${this.passages}_${Math.floor(i / PASSAGES_PER_ARTIFACT)}#${i % PASSAGES_PER_ARTIFACT}`);
  }
}

function unit(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

/**
 * The semantic leg as it was before signatures: the exact scan, every passage's vector read and scored. (It was a
 * `search_dot` over the real[] column, which went: the float4 bytes are now a passage's only vector; they are scored
 * here, as the rerank does.)
 */
export async function exactScan(db: pg.Pool, driveId: string, vector: number[]): Promise<string[]> {
  const { rows } = await db.query<{ art_id: string; ord: number; path: string; bytes: Buffer }>(
    `select p.art_id, p.ord, d.path, p.embedding_bytes as bytes
       from search_passages p join search_documents d using (drive_id, art_id)
      where p.drive_id = $1 and p.embedding_bytes is not null`,
    [driveId],
  );
  return rows
    .map((r) => ({ r, s: dotWithBytes(vector, r.bytes) }))
    .sort((a, b) => b.s - a.s || a.r.path.localeCompare(b.r.path) || a.r.ord - b.r.ord)
    .slice(0, 20)
    .map(({ r }) => `${r.art_id}#${r.ord}`);
}
