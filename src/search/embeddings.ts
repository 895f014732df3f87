/**
 * Client for any OpenAI-compatible embeddings endpoint (POST {base}/embeddings, where the
 * configured URL is the API base such as https://api.openai.com/v1; a URL already ending in
 * /embeddings is used as is). Inputs go in batches; 429, 5xx and network errors are retried
 * with backoff; anything else fails at once with a message that names the provider and status.
 * Vectors are normalised to unit length so engines rank by dot product (= cosine).
 *
 * Always progresses on a slow provider (docs/decisions/indexing.md, "Vectors that catch up"): a request's timeout is
 * `timeoutMs + timeoutPerInputMs` per input, and a batch that times out or is refused as too large (413) is split in
 * halves and retried, down to one input; the client then keeps the smaller size and grows it back after a run of
 * successes, so a provider that manages 10 inputs a second is not sent 64 again and again.
 */
export interface EmbeddingsSettings {
  url: string;
  apiKey: string;
  model: string;
  dimensions: number;
}

export class EmbeddingsError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** A timeout or a 413: the same inputs in smaller batches may pass. */
    readonly tooBig = false,
  ) {
    super(message);
    this.name = 'EmbeddingsError';
  }
}

export interface Embedder {
  readonly dimensions: number;
  /** Names the vector space (model and dimensions): cached vectors are reused only within it. */
  readonly space: string;
  embed(texts: string[]): Promise<number[][]>;
}

export interface EmbeddingsClientOptions {
  batchSize?: number;
  attempts?: number;
  backoffMs?: number;
  /** The timeout of a request of one input; each further input adds `timeoutPerInputMs`. */
  timeoutMs?: number;
  timeoutPerInputMs?: number;
}

/** Successful requests at the reduced size before the client tries twice as many inputs again. */
const GROW_AFTER = 8;

export function endpointOf(url: string): string {
  const base = url.replace(/\/+$/, '');
  return base.endsWith('/embeddings') ? base : `${base}/embeddings`;
}

export function normalise(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm === 0 ? v : v.map((x) => x / norm);
}

export class EmbeddingsClient implements Embedder {
  readonly dimensions: number;
  readonly space: string;
  private readonly endpoint: string;
  private readonly batchSize: number;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly timeoutMs: number;
  private readonly timeoutPerInputMs: number;
  /** The batch size the provider last managed (at most `batchSize`), and the successes at it since. */
  private size: number;
  private streak = 0;

  constructor(
    private readonly settings: EmbeddingsSettings,
    opts: EmbeddingsClientOptions = {},
  ) {
    this.dimensions = settings.dimensions;
    this.space = `${settings.model}/${settings.dimensions}`;
    this.endpoint = endpointOf(settings.url);
    this.batchSize = opts.batchSize ?? 64;
    this.attempts = opts.attempts ?? 3;
    this.backoffMs = opts.backoffMs ?? 250;
    // 10 s + 0.5 s per input: 64 inputs may take 42 s (a CPU provider managing 1.6 a second needs 40).
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.timeoutPerInputMs = opts.timeoutPerInputMs ?? 500;
    this.size = this.batchSize;
  }

  /** The batch size the next request will use (smaller than the configured one after a provider was too slow). */
  get currentBatchSize(): number {
    return this.size;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length;) {
      const size = this.size;
      out.push(...(await this.embedBatch(texts.slice(i, i + size))));
      i += size;
    }
    return out;
  }

  /** One batch, split in halves (and the client's size lowered) when it times out or is too large. */
  private async embedBatch(input: string[]): Promise<number[][]> {
    try {
      const vectors = await this.withRetries(input);
      this.succeeded(input.length);
      return vectors;
    } catch (err) {
      if (!(err instanceof EmbeddingsError) || !err.tooBig || input.length === 1) throw err;
      // Half of what failed, and never more than the size learned meanwhile; then on at that size.
      this.size = Math.min(this.size, Math.ceil(input.length / 2));
      this.streak = 0;
      return this.embed(input);
    }
  }

  private succeeded(inputs: number): void {
    if (this.size >= this.batchSize || inputs < this.size) return;
    if (++this.streak < GROW_AFTER) return;
    this.size = Math.min(this.batchSize, this.size * 2);
    this.streak = 0;
  }

  /** Retries what may pass the next time (429, 5xx, network); a timeout or a 413 goes back to be split instead. */
  private async withRetries(input: string[]): Promise<number[][]> {
    let last: EmbeddingsError | undefined;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      try {
        return await this.request(input);
      } catch (err) {
        last = err instanceof EmbeddingsError ? err : new EmbeddingsError(String(err), true);
        if (!last.retryable || (last.tooBig && input.length > 1) || attempt === this.attempts) break;
        await new Promise((r) => setTimeout(r, this.backoffMs * 2 ** (attempt - 1)));
      }
    }
    throw last!;
  }

  private async request(input: string[]): Promise<number[][]> {
    const timeout = this.timeoutMs + this.timeoutPerInputMs * (input.length - 1);
    const signal = AbortSignal.timeout(timeout);
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.settings.apiKey ? { authorization: `Bearer ${this.settings.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.settings.model,
          input,
          dimensions: this.settings.dimensions,
          encoding_format: 'float',
        }),
        signal,
      });
    } catch (err) {
      if (signal.aborted) {
        throw new EmbeddingsError(
          `embeddings provider at ${this.endpoint} did not answer ${input.length} inputs within ${timeout} ms`,
          true,
          true,
        );
      }
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new EmbeddingsError(`embeddings provider unreachable at ${this.endpoint}: ${cause}`, true);
    }
    if (!res.ok) {
      const body = (await res.text().catch(() => '')).slice(0, 300);
      const retryable = res.status === 429 || res.status >= 500;
      throw new EmbeddingsError(
        `embeddings provider at ${this.endpoint} answered ${res.status}: ${body}`,
        retryable || res.status === 413,
        res.status === 413,
      );
    }
    let json: { data?: { index: number; embedding: number[] }[] };
    try {
      json = (await res.json()) as typeof json;
    } catch (err) {
      // The timeout also covers reading the answer.
      if (!signal.aborted) throw err;
      throw new EmbeddingsError(`embeddings provider at ${this.endpoint} timed out answering`, true, true);
    }
    const data = json.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new EmbeddingsError(
        `embeddings provider at ${this.endpoint} returned ${data?.length ?? 'no'} vectors for ${input.length} inputs`,
        false,
      );
    }
    const vectors = [...data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    const wrong = vectors.find((v) => v.length !== this.dimensions);
    if (wrong) {
      throw new EmbeddingsError(
        `embeddings provider returned ${wrong.length} dimensions; EMBEDDINGS_DIMENSIONS is ${this.dimensions}`,
        false,
      );
    }
    return vectors.map(normalise);
  }
}
