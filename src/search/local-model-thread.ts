import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';
import { buildBertGraph } from './bert-graph.js';
import { LOCAL_MODEL, loadModelFiles } from './local-model-files.js';
import { combineWindows, windowsOf, type LongPassageMode, type Window } from './token-windows.js';

/**
 * The worker thread that runs the embedded model (local-embedder.ts starts it). ONNX Runtime for Node runs a
 * session synchronously on the calling thread, so it runs here: the process's event loop never waits for a
 * forward pass. The thread checks and loads the model once, then answers {id, texts} with {id, vectors} (flat,
 * `dimensions` floats per text) or {id, error}, one request at a time.
 */
export interface ThreadOptions {
  modelDir: string;
  threads: number;
  longPassages: LongPassageMode;
  overlap: number;
  /** Padded tokens per forward pass: bounds the attention's memory (batch × heads × seq² floats). */
  batchTokens: number;
}
export type ThreadRequest = { id: number; texts: string[] };
export type ThreadReply = { id: number; vectors: Float32Array; tokens: number } | { id: number; error: string };

const opts = workerData as ThreadOptions;
const CONTENT = LOCAL_MODEL.window - 2;

interface Loaded {
  session: ort.InferenceSession;
  tokenizer: Tokenizer;
  cls: number;
  sep: number;
}

async function load(): Promise<Loaded> {
  const files = loadModelFiles(opts.modelDir);
  const tokenizer = new Tokenizer(files.tokenizer, files.tokenizerConfig);
  const graph = buildBertGraph(files);
  const session = await ort.InferenceSession.create(graph, {
    intraOpNumThreads: opts.threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  });
  return { session, tokenizer, cls: tokenizer.token_to_id('[CLS]')!, sep: tokenizer.token_to_id('[SEP]')! };
}
const loading = load();
// Once loaded, the file, the graph and the weights' copies (~270 MB) are garbage; an idle thread would hold them until
// its next major collection, so collect once now (the thread's heap is small: milliseconds).
void loading.then(
  () => {
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
  },
  () => undefined,
);
// Reported with the first request; never an unhandled rejection in the thread.
loading.catch(() => undefined);

/** Runs windows of similar length together, padded to the longest of each batch; returns one vector per window. */
async function forward(m: Loaded, windows: Window[]): Promise<Float32Array[]> {
  const dims = LOCAL_MODEL.dimensions;
  const order = windows.map((_, i) => i).sort((a, b) => windows[a]!.ids.length - windows[b]!.ids.length);
  const out: Float32Array[] = new Array(windows.length);
  for (let at = 0; at < order.length;) {
    let end = at + 1;
    while (end < order.length && (end - at + 1) * (windows[order[end]!]!.ids.length + 2) <= opts.batchTokens) end++;
    const batch = order.slice(at, end);
    const width = windows[batch[batch.length - 1]!]!.ids.length + 2;
    const ids = new BigInt64Array(batch.length * width);
    const mask = new BigInt64Array(batch.length * width);
    batch.forEach((w, row) => {
      const pieces = [m.cls, ...windows[w]!.ids, m.sep];
      pieces.forEach((id, col) => {
        ids[row * width + col] = BigInt(id);
        mask[row * width + col] = 1n;
      });
    });
    const result = await m.session.run({
      input_ids: new ort.Tensor('int64', ids, [batch.length, width]),
      attention_mask: new ort.Tensor('int64', mask, [batch.length, width]),
    });
    const pooled = result.pooled!.data as Float32Array;
    batch.forEach((w, row) => (out[w] = pooled.slice(row * dims, (row + 1) * dims)));
    at = end;
  }
  return out;
}

async function embed(texts: string[]): Promise<{ vectors: Float32Array; tokens: number }> {
  const m = await loading;
  const dims = LOCAL_MODEL.dimensions;
  const perText = texts.map((t) =>
    windowsOf(m.tokenizer.encode(t, { add_special_tokens: false }).ids, CONTENT, opts.overlap, opts.longPassages),
  );
  const flat = perText.flat();
  const pooled = await forward(m, flat);
  const vectors = new Float32Array(texts.length * dims);
  let at = 0;
  perText.forEach((ws, i) => {
    const combined = combineWindows(
      pooled.slice(at, at + ws.length),
      ws.map((w) => w.weight),
      dims,
      opts.longPassages === 'lead-and-windows',
    );
    vectors.set(combined, i * dims);
    at += ws.length;
  });
  return { vectors, tokens: flat.reduce((s, w) => s + w.ids.length + 2, 0) };
}

let queue = Promise.resolve();
parentPort!.on('message', (req: ThreadRequest) => {
  queue = queue.then(async () => {
    let reply: ThreadReply;
    try {
      reply = { id: req.id, ...(await embed(req.texts)) };
    } catch (err) {
      reply = { id: req.id, error: (err as Error).message };
    }
    parentPort!.postMessage(reply, 'vectors' in reply ? [reply.vectors.buffer as ArrayBuffer] : []);
  });
});
