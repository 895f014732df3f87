import { DriveError } from './errors.js';
import { withRetries, type RetryOptions } from './retry.js';

/**
 * What the SDK authenticates with (spec 5): an API key is sent as is; an identity assertion is exchanged
 * at /oauth2/token for a 15-minute access token, renewed a minute before it runs out (and once more on a
 * 401); with the claim token too, an assertion the claim rotated away is replaced through the `claim` grant.
 */
export type Credential =
  | { apiKey: string }
  | { identityAssertion: string; claimToken?: string; accessToken?: string; accessTokenExpiresAt?: number };

/** A new access token (and, after the claim grant, a new assertion), for callers that keep them (the CLI's config). */
export interface TokenUpdate {
  accessToken: string;
  accessTokenExpiresAt: number;
  identityAssertion?: string;
}

/** Renew this long before the token's end, so a request in flight never carries an expired one. */
const RENEW_MARGIN_MS = 60_000;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export class TokenSource {
  private pending: Promise<string> | undefined;
  private credential: Credential;

  constructor(
    private readonly baseUrl: string,
    credential: Credential,
    private readonly fetchImpl: typeof fetch,
    private readonly retry: RetryOptions,
    private readonly onUpdate?: (update: TokenUpdate) => void,
  ) {
    this.credential = { ...credential };
  }

  /** Whether a 401 may be cured by a new token (an API key cannot be renewed). */
  get renewable(): boolean {
    return !('apiKey' in this.credential);
  }

  /** The Authorization header value to send now. */
  async authorization(): Promise<string> {
    const c = this.credential;
    if ('apiKey' in c) return `Bearer ${c.apiKey}`;
    if (c.accessToken && (c.accessTokenExpiresAt ?? 0) - RENEW_MARGIN_MS > Date.now()) return `Bearer ${c.accessToken}`;
    // Concurrent requests share one exchange.
    this.pending ??= this.exchange().finally(() => (this.pending = undefined));
    return `Bearer ${await this.pending}`;
  }

  /** Forgets the access token (the server refused it); the next authorization() exchanges again. */
  invalidate(): void {
    if (!('apiKey' in this.credential)) this.credential = { ...this.credential, accessToken: undefined };
  }

  private async exchange(): Promise<string> {
    const c = this.credential as Extract<Credential, { identityAssertion: string }>;
    try {
      return await this.grant({ grant_type: JWT_BEARER, assertion: c.identityAssertion });
    } catch (err) {
      // A claimed drive's assertion was rotated by the claim (spec 5.6): the claim grant hands out the new one.
      if (err instanceof DriveError && err.code === 'invalid_grant' && c.claimToken)
        return this.grant({ grant_type: 'claim', claim_token: c.claimToken });
      throw err;
    }
  }

  private async grant(form: Record<string, string>): Promise<string> {
    const url = new URL('/oauth2/token', this.baseUrl).toString();
    const send = () =>
      this.fetchImpl(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const res = await withRetries(send, this.retry, url);
    if (!res.ok) throw await DriveError.fromResponse(res);
    const body = (await res.json()) as { access_token: string; expires_in: number; identity_assertion?: string };
    const update: TokenUpdate = {
      accessToken: body.access_token,
      accessTokenExpiresAt: Date.now() + body.expires_in * 1000,
      identityAssertion: body.identity_assertion,
    };
    const c = this.credential as Extract<Credential, { identityAssertion: string }>;
    this.credential = {
      ...c,
      identityAssertion: update.identityAssertion ?? c.identityAssertion,
      accessToken: update.accessToken,
      accessTokenExpiresAt: update.accessTokenExpiresAt,
    };
    this.onUpdate?.(update);
    return update.accessToken;
  }
}
