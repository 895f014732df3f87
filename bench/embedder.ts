import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { LocalEmbedder } from '../src/search/local-embedder.js';

/**
 * `npm run bench:embedder`: the embedded model (all-MiniLM-L6-v2 on ONNX Runtime, src/search/local-embedder.ts) on
 * real text: this checkout's docs cut into passages of the size the indexer embeds (~1,200 cl100k tokens, about
 * five windows). Prints word pieces per CPU-second (per core: the process's CPU time, the model's thread included,
 * so other load on the machine does not count), per wall second, the latency of short queries, the resident memory
 * with the model loaded and the longest stall of the event loop while the model worked. The goal of issue 53 is
 * 1,500 tokens/s per core. Flags: --threads N (ONNX Runtime's intra-op threads), --passages N, --first-window.
 */
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const threads = arg('threads', 1);
const passages = arg('passages', 48);
const GOAL = 1500;

function corpus(): string[] {
  const dirs = ['docs', 'docs/decisions'];
  const text = dirs
    .flatMap((d) =>
      readdirSync(d)
        .filter((f) => f.endsWith('.md'))
        .map((f) => path.join(d, f)),
    )
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n\n');
  // ~5,000 characters is ~1,200 cl100k tokens of English prose.
  const out: string[] = [];
  for (let at = 0; out.length < passages && at < text.length; at += 5000) out.push(text.slice(at, at + 5000));
  return out;
}

const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;
const cpuSeconds = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1e6;

const embedder = new LocalEmbedder({
  threads,
  longPassages: process.argv.includes('--first-window') ? 'first-window' : 'lead-and-windows',
});
const rssBefore = process.memoryUsage().rss;
let t = performance.now();
await embedder.embed(['warm up']);
const loadMs = performance.now() - t;
const rssLoaded = process.memoryUsage().rss;

const texts = corpus();
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
const tokensBefore = embedder.tokens;
const cpu0 = process.cpuUsage();
t = performance.now();
for (let i = 0; i < texts.length; i += 16) await embedder.embed(texts.slice(i, i + 16));
const wall = (performance.now() - t) / 1000;
const cpu = cpuSeconds(process.cpuUsage(cpu0));
loop.disable();
const tokens = embedder.tokens - tokensBefore;

const queries = ['how long do we store bills', 'which port does the worker listen on', 'who may read a shared folder'];
const latencies: number[] = [];
for (let i = 0; i < 60; i++) {
  const q0 = performance.now();
  await embedder.embed([`${queries[i % queries.length]} ${i}`]);
  latencies.push(performance.now() - q0);
}
latencies.sort((a, b) => a - b);
const rssAfter = process.memoryUsage().rss;
await embedder.close();

const perCore = tokens / cpu;
console.log(
  `passages: ${texts.length} (${tokens} word pieces with their windows' [CLS]/[SEP]), ONNX Runtime threads: ${threads}`,
);
console.log(
  `model load: ${(loadMs / 1000).toFixed(1)} s; RSS ${mb(rssBefore)} before, ${mb(rssLoaded)} loaded, ${mb(rssAfter)} after the run (peak ${mb(process.resourceUsage().maxRSS * 1024)})`,
);
console.log(
  `event loop: longest stall ${(loop.max / 1e6).toFixed(1)} ms while the model ran (it runs on its own thread)`,
);
console.log(
  `bench:embedder: ${Math.round(perCore)} tokens/s per core (${(perCore / GOAL).toFixed(2)}x the 1,500 goal), ` +
    `${Math.round(tokens / wall)} tokens/s wall, query p50 ${latencies[30]!.toFixed(1)} ms p95 ${latencies[57]!.toFixed(1)} ms, ` +
    `RSS ${mb(rssAfter)} with the model loaded`,
);
