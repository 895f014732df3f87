/**
 * Client for any OpenAI-compatible embeddings endpoint (POST {base}/embeddings, where the
 * configured URL is the API base such as https://api.openai.com/v1; a URL already ending in
 * /embeddings is used as is). Inputs go in batches; 429, 5xx and network errors are retried
 * with backoff; anything else fails at once with a message that names the provider and status.
 * Vectors are normalised to unit length so engines rank by dot product (= cosine).
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
  timeoutMs?: number;
}

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
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize)
      out.push(...(await this.embedBatch(texts.slice(i, i + this.batchSize))));
    return out;
  }

  private async embedBatch(input: string[]): Promise<number[][]> {
    let last: EmbeddingsError | undefined;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      try {
        return await this.request(input);
      } catch (err) {
        last = err instanceof EmbeddingsError ? err : new EmbeddingsError(String(err), true);
        if (!last.retryable || attempt === this.attempts) break;
        await new Promise((r) => setTimeout(r, this.backoffMs * 2 ** (attempt - 1)));
      }
    }
    throw last!;
  }

  private async request(input: string[]): Promise<number[][]> {
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
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new EmbeddingsError(`embeddings provider unreachable at ${this.endpoint}: ${cause}`, true);
    }
    if (!res.ok) {
      const body = (await res.text().catch(() => '')).slice(0, 300);
      const retryable = res.status === 429 || res.status >= 500;
      throw new EmbeddingsError(`embeddings provider at ${this.endpoint} answered ${res.status}: ${body}`, retryable);
    }
    const json = (await res.json()) as { data?: { index: number; embedding: number[] }[] };
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
