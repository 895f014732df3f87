import { AppError } from './errors.js';

/**
 * Classifies a failure of a dependency (PostgreSQL, Temporal) as a 503 with a code per dependency
 * and Retry-After, in one place for every door: a dependency being down is never a 500. S3 failures
 * are classified where the bytes are read or written (storageFailure, STORAGE_FAILURE).
 */
const RETRY_AFTER_S = '5';

/** Node socket errors and PostgreSQL's "server going away / cannot connect now" classes (57P0x, 08xxx, 53300). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
const CONNECTION_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)|terminating connection/i;

/** gRPC status codes that mean "Temporal is unreachable or too slow": UNAVAILABLE (14), DEADLINE_EXCEEDED (4). */
const GRPC_UNREACHABLE = new Set([4, 14]);

interface ErrorLike {
  name?: string;
  code?: unknown;
  message?: string;
  cause?: unknown;
  errors?: unknown[];
}

function chain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let e = err as ErrorLike | undefined;
  for (let i = 0; e && typeof e === 'object' && i < 6; i++, e = e.cause as ErrorLike | undefined) {
    out.push(e);
    // AggregateError (e.g. a connect to several addresses) carries the socket errors in `errors`.
    if (Array.isArray(e.errors)) out.push(...(e.errors as ErrorLike[]));
  }
  return out;
}

function isDatabaseDown(err: unknown): boolean {
  return chain(err).some(
    (e) =>
      e.name === 'ConnectionException' ||
      (typeof e.code === 'string' && (CONNECTION_CODES.has(e.code) || e.code.startsWith('08'))) ||
      (typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message)),
  );
}

function isTemporalDown(err: unknown): boolean {
  const links = chain(err);
  return (
    links.some((e) => e.name === 'ServiceError') &&
    links.some((e) => typeof e.code === 'number' && GRPC_UNREACHABLE.has(e.code))
  );
}

/** The 503 this dependency failure deserves, or undefined when it is not one. */
export function dependencyFailure(err: unknown): AppError | undefined {
  if (err instanceof AppError) return undefined;
  if (isTemporalDown(err)) {
    return new AppError(
      'WORKFLOWS_UNAVAILABLE',
      'the workflow service is unavailable; retry later',
      {},
      { 'Retry-After': RETRY_AFTER_S },
    );
  }
  if (isDatabaseDown(err)) {
    return new AppError(
      'DATABASE_UNAVAILABLE',
      'the database is unavailable; retry later',
      {},
      { 'Retry-After': RETRY_AFTER_S },
    );
  }
  return undefined;
}
