import createClient, { type Client } from 'openapi-fetch';
import { TokenSource, type Credential, type TokenUpdate } from './credentials.js';
import { DriveError, networkCause } from './errors.js';
import { withRetries, type RetryOptions } from './retry.js';
import type { paths } from './schema.js';

export interface DriveClientOptions {
  /** The API origin, e.g. http://localhost:8080. */
  baseUrl: string;
  /** Absent: only the public endpoints (registration, /openapi.json) work. */
  credential?: Credential;
  /** Sent as X-Drive-Actor on every request (attribution only). */
  actor?: string;
  /**
   * Sent as X-Drive-Run-Id on every request: the run the changes are filed under (one undo reverts them). `Drive`
   * makes one per instance when this is absent; `null` leaves it to the server (one run per credential).
   */
  runId?: string | null;
  /** Sent as X-Drive-Fence on every request: the fence of the lease these writes are made under (drive.leases). */
  fence?: number;
  retry?: RetryOptions;
  /** Told when a new access token (or assertion) was obtained, to keep it. */
  onTokenUpdate?: (update: TokenUpdate) => void;
  fetch?: typeof fetch;
}

/**
 * A path parameter named `path` keeps its slashes (`/v0/artifacts/{path}` takes `reports/q1.md`);
 * every segment, and every other parameter, is percent-encoded.
 */
function serializePath(pathname: string, params: Record<string, unknown>): string {
  return pathname.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = String(params[name] as string | number);
    return name === 'path' ? value.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(value);
  });
}

/** The typed SDK: `api` is openapi-fetch over the generated paths, behind credentials and retries. */
export class DriveClient {
  readonly baseUrl: string;
  readonly api: Client<paths>;
  readonly tokens: TokenSource | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly retry: RetryOptions;
  private readonly actor: string | undefined;
  readonly runId: string | undefined;
  readonly fence: number | undefined;

  constructor(options: DriveClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.retry = options.retry ?? {};
    this.actor = options.actor;
    this.runId = options.runId ?? undefined;
    this.fence = options.fence;
    this.tokens = options.credential
      ? new TokenSource(this.baseUrl, options.credential, this.fetchImpl, this.retry, options.onTokenUpdate)
      : undefined;
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      fetch: (request: Request) => this.send(request),
      pathSerializer: serializePath,
    });
  }

  /**
   * Sends a request with the credential, retrying 429/503 (Retry-After honoured) and renewing an access
   * token the server refused once. The request is cloned per attempt, so its body must be replayable.
   */
  async send(request: Request): Promise<Response> {
    const attempt = async () => {
      const headers = new Headers(request.headers);
      if (this.tokens && !headers.has('authorization')) headers.set('authorization', await this.tokens.authorization());
      if (this.actor && !headers.has('x-drive-actor')) headers.set('x-drive-actor', this.actor);
      if (this.runId && !headers.has('x-drive-run-id')) headers.set('x-drive-run-id', this.runId);
      if (this.fence !== undefined && !headers.has('x-drive-fence')) headers.set('x-drive-fence', String(this.fence));
      try {
        return await this.fetchImpl(new Request(request.clone(), { headers }));
      } catch (err) {
        throw new DriveError(0, 'NETWORK_ERROR', `${request.method} ${request.url}: ${networkCause(err as Error)}`);
      }
    };
    let res = await withRetries(attempt, this.retry, request.url);
    if (res.status === 401 && this.tokens?.renewable && !request.headers.has('authorization')) {
      await res.body?.cancel();
      this.tokens.invalidate();
      res = await withRetries(attempt, this.retry, request.url);
    }
    return res;
  }

  /** A GET (or other call) on a path of this server outside the typed surface, e.g. a stream. */
  fetch(path: string, init: RequestInit = {}): Promise<Response> {
    return this.send(new Request(new URL(path, this.baseUrl + '/'), init));
  }
}

/** An openapi-fetch result's data, or the DriveError its failure stands for. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw DriveError.fromBody(response.status, error, response.headers);
  return data as T;
}
