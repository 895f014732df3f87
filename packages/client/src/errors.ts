/**
 * The one error the SDK throws for an answer it did not want: the HTTP status and the spec's `code`
 * (`detail.error.code` of the envelope, spec 7), `VALIDATION_ERROR` for a 422 body, the RFC 6749 `error`
 * of the token endpoint, or `NETWORK_ERROR` (status 0) when no answer came.
 */
export class DriveError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The parsed error body, when there was one. */
    readonly body?: unknown,
    /** Seconds the server asked to wait (Retry-After), on a 429 or 503 that was not retried further. */
    readonly retryAfterS?: number,
  ) {
    super(message);
    this.name = 'DriveError';
  }

  /** The error an answer's status and parsed body stand for. */
  static fromBody(status: number, body: unknown, headers?: Headers): DriveError {
    const retryAfter = Number(headers?.get('retry-after') ?? NaN);
    const wait = Number.isFinite(retryAfter) ? retryAfter : undefined;
    const b = body as Record<string, any> | undefined;
    const envelope = b?.detail?.error;
    if (envelope && typeof envelope.code === 'string')
      return new DriveError(status, envelope.code, String(envelope.message ?? envelope.code), body, wait);
    if (status === 422 && Array.isArray(b?.detail)) {
      const first = b.detail[0] as { loc?: unknown[]; msg?: string } | undefined;
      const where = first?.loc?.join('.') ?? 'request';
      return new DriveError(status, 'VALIDATION_ERROR', `${where}: ${first?.msg ?? 'invalid'}`, body, wait);
    }
    if (typeof b?.error === 'string')
      return new DriveError(status, b.error, String(b.error_description ?? b.error), body, wait);
    const text = typeof body === 'string' && body ? body.slice(0, 200) : `HTTP ${status}`;
    return new DriveError(status, `HTTP_${status}`, text, body, wait);
  }

  /** Reads a failed response's body (JSON if it parses) into a DriveError. */
  static async fromResponse(res: Response): Promise<DriveError> {
    const text = await res.text().catch(() => '');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return DriveError.fromBody(res.status, body, res.headers);
  }
}

/** `fetch failed` says nothing: name the cause (refused, unknown host, timed out) and the server it was for. */
export function networkCause(err: Error): string {
  const cause = (err as Error & { cause?: NodeJS.ErrnoException & { address?: string; port?: number } }).cause;
  if (err.message !== 'fetch failed' || !cause) return err.message;
  const where = cause.address ? ` (${cause.address}${cause.port ? `:${cause.port}` : ''})` : '';
  const why: Record<string, string> = {
    ECONNREFUSED: 'the connection was refused: is the server running at that address?',
    ENOTFOUND: 'the host name was not found',
    ETIMEDOUT: 'the connection timed out',
    ECONNRESET: 'the connection was reset',
  };
  return `cannot reach the server${where}: ${why[cause.code ?? ''] ?? cause.message}`;
}
