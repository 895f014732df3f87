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
  | 'invalid_client_metadata';

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}
