import type { BenchStack } from './bench-stack.js';
import { forEachLimited } from '../src/outbox/outbox.js';

/**
 * What bench:ingest puts through the API, shared with bench:find's phase after an ingest: 32 KB Markdown documents of
 * synthetic prose, PUT by a few concurrent clients, then the wait until the indexer has embedded every one.
 */
/** The environment pointing a bench stack at the local embeddings server (a 256-dimension model named bench). */
export const embeddingsEnv = (e: { url: string; apiKey: string }) => ({
  EMBEDDINGS_URL: e.url,
  EMBEDDINGS_API_KEY: e.apiKey,
  EMBEDDINGS_MODEL: 'bench',
  EMBEDDINGS_DIMENSIONS: '256',
});

export const DOC_BYTES = 32 * 1024;

let seed = 11;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const VOCAB = Array.from({ length: 30_000 }, (_, i) => `w${i.toString(36)}${['ing', 'ed', 's', 'ly', ''][i % 5]}`);
const word = () => VOCAB[Math.floor(rand() ** 3 * VOCAB.length)]!;

/** A sentence of 6-30 words of the documents' vocabulary. */
export function sentence(): string {
  const words = Array.from({ length: 6 + Math.floor(rand() * 25) }, word).join(' ');
  return `${words[0]!.toUpperCase()}${words.slice(1)}.`;
}

/** About DOC_BYTES of prose: sentences of 6-30 words, paragraphs of 2-8 sentences. */
export function documentText(i: number): string {
  const parts = [`# Document ${i}\n\n`];
  let size = parts[0]!.length;
  while (size < DOC_BYTES) {
    const sentences = 2 + Math.floor(rand() * 7);
    let paragraph = '';
    for (let s = 0; s < sentences; s++) paragraph += `${sentence()} `;
    parts.push(`${paragraph.trim()}\n\n`);
    size += paragraph.length + 2;
  }
  return parts.join('');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** PUTs a Markdown text through the API; resolves with its art_id. */
export async function putText(stack: BenchStack, key: string, path: string, body: string): Promise<string> {
  const res = await fetch(`${stack.url}/v0/artifacts/${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/markdown' },
    body,
  });
  if (res.status !== 200 && res.status !== 201) throw new Error(`PUT ${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { art_id: string }).art_id;
}

/** PUTs `texts` as `<prefix><i>.md`, `concurrency` at a time; returns their art_ids by index. */
export async function putAll(
  stack: BenchStack,
  key: string,
  prefix: string,
  texts: string[],
  concurrency: number,
): Promise<string[]> {
  const ids: string[] = [];
  await forEachLimited(
    Array.from({ length: texts.length }, (_, i) => i),
    concurrency,
    async (i) => {
      ids[i] = await putText(stack, key, `${prefix}${i}.md`, texts[i]!);
    },
  );
  return ids;
}

/**
 * Waits until `count` live artifacts under `prefix` have `embedded_at` (the indexer's own mark, set once an
 * artifact's embedded passages are written), polled every 500 ms: a heavier poll was a third of PostgreSQL's time.
 */
export async function waitEmbedded(stack: BenchStack, driveId: string, prefix: string, count: number): Promise<void> {
  for (;;) {
    stack.alive();
    const { rows } = await stack.admin.query<{ n: number }>(
      `select count(*)::int as n from artifacts
        where drive_id = $1 and deleted_at is null and path like $2 and embedded_at is not null`,
      [driveId, `${prefix}%`],
    );
    if (rows[0]!.n >= count) return;
    await sleep(500);
  }
}
