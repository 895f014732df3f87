import { Worker } from 'node:worker_threads';
import { EmbeddingsError, type Embedder } from './embeddings.js';
import { DEFAULT_MODEL_DIR, LOCAL_MODEL } from './local-model-files.js';
import type { ThreadOptions, ThreadReply } from './local-model-thread.js';
import type { LongPassageMode } from './token-windows.js';

/**
 * The embedded default embeddings provider: all-MiniLM-L6-v2 (384 dimensions) on the CPU with ONNX Runtime, no key,
 * nothing fetched at run time (the files come at install time, scripts/fetch-model.ts). The model runs in a worker
 * thread (local-model-thread.ts), started at the first embed() so a process that never embeds pays nothing (an API
 * process loads it at its first semantic query, ~1-2 s). A model that fails its checksum or is missing fails every
 * embed() with a non-retryable EmbeddingsError naming the cause.
 */
export interface LocalEmbedderOptions {
  /** Default: .tools/models/all-minilm-l6-v2 in the checkout (EMBEDDINGS_MODEL_DIR). */
  modelDir?: string;
  /** ONNX Runtime's intra-op threads (EMBEDDINGS_THREADS, default 1: indexing keeps to one core of two). */
  threads?: number;
  /**
   * How a passage longer than the window is embedded (token-windows.ts): 'lead-and-windows' (default), 'windows' or
   * 'first-window'.
   */
  longPassages?: LongPassageMode;
  /** Word pieces consecutive windows share (default 32). */
  overlap?: number;
  /** Padded tokens per forward pass (default 2,048: eight full windows). */
  batchTokens?: number;
}

const THREAD_URL = new URL(`./local-model-thread${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

export class LocalEmbedder implements Embedder {
  readonly dimensions = LOCAL_MODEL.dimensions;
  readonly space: string;
  readonly modelDir: string;
  /** Word pieces run through the model so far, [CLS]/[SEP] and every window included (the bench reads it). */
  tokens = 0;
  private worker: Worker | undefined;
  private readonly pending = new Map<
    number,
    { resolve: (v: number[][]) => void; reject: (e: Error) => void; n: number }
  >();
  private nextId = 1;
  private readonly threadOptions: ThreadOptions;

  constructor(opts: LocalEmbedderOptions = {}) {
    this.modelDir = opts.modelDir ?? DEFAULT_MODEL_DIR;
    const longPassages = opts.longPassages ?? 'lead-and-windows';
    this.threadOptions = {
      modelDir: this.modelDir,
      threads: opts.threads ?? 1,
      longPassages,
      overlap: opts.overlap ?? 32,
      batchTokens: opts.batchTokens ?? 2048,
    };
    // The vectors of the two long-passage modes differ, so cached vectors of one are not reused by the other.
    this.space = `${LOCAL_MODEL.name}/${this.dimensions}${longPassages === 'lead-and-windows' ? '' : `/${longPassages}`}`;
  }

  embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return Promise.resolve([]);
    const worker = this.thread();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, n: texts.length });
      // The thread keeps the process alive only while it owes an answer.
      worker.ref();
      worker.postMessage({ id, texts });
    });
  }

  /** Stops the model's thread (tests, benches); a later embed() starts it again. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    // A thread of a TypeScript module needs the same loader as the process that runs from source.
    const fromSource = THREAD_URL.pathname.endsWith('.ts') && !process.execArgv.some((a) => a.includes('tsx'));
    const worker = new Worker(THREAD_URL, {
      workerData: this.threadOptions,
      execArgv: fromSource ? [...process.execArgv, '--import', 'tsx'] : process.execArgv,
    });
    worker.on('message', (reply: ThreadReply) => this.settle(reply));
    worker.on('error', (err) => this.failAll(err));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(new Error(`the embedding model's thread exited (code ${code})`));
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private settle(reply: ThreadReply) {
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker?.unref();
    if ('error' in reply) {
      p.reject(new EmbeddingsError(`${LOCAL_MODEL.name} (local): ${reply.error}`, false));
      return;
    }
    this.tokens += reply.tokens;
    const d = this.dimensions;
    p.resolve(Array.from({ length: p.n }, (_, i) => Array.from(reply.vectors.subarray(i * d, (i + 1) * d))));
  }

  private failAll(err: Error) {
    for (const p of this.pending.values())
      p.reject(new EmbeddingsError(`${LOCAL_MODEL.name} (local): ${err.message}`, true));
    this.pending.clear();
  }
}
