/** A token-endpoint error, rendered in the RFC 6749 shape {error, error_description}, not the envelope. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'authorization_pending'
  | 'expired_token'
  | 'access_denied'
  | 'temporarily_unavailable'
  | 'invalid_client'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'invalid_scope'
  /** RFC 8707: the `resource` is not this service's. */
  | 'invalid_target'
  /** Not an RFC code: dynamic registration is open to anyone, so it is limited per client IP (429). */
  | 'rate_limited';

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
    /** Seconds, sent as Retry-After (a 429 or 503). */
    readonly retryAfterS?: number,
  ) {
    super(description);
  }
}
