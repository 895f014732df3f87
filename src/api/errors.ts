/**
 * The one error type of the API. Thrown anywhere below a route; the error middleware
 * turns it into the spec's envelope {"detail":{"error":{"code","message", ...extra}}}.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const notFound = (code = 'NOT_FOUND', message = 'not found') => new ApiError(404, code, message);

export function errorEnvelope(code: string, message: string, extra: Record<string, unknown> = {}) {
  return { detail: { error: { code, message, ...extra } } };
}
