import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { TestApi } from '../helpers/api.js';

/** The pieces of a stock MCP client's OAuth flow (DCR, PKCE, the authorization request), for the OAuth suites. */
export const REDIRECT = 'http://127.0.0.1:33418/callback';

export const postForm = (api: TestApi, path: string, fields: Record<string, string>) =>
  fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

export async function registerClient(api: TestApi) {
  const res = await fetch(`${api.url}/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Stock MCP client',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { client_id: string };
}

export function pkce() {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The query of an authorization request with PKCE (and `extra` parameters). */
export const authorizeQuery = (clientId: string, challenge: string, extra: Record<string, string> = {}) =>
  new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });

export type Tokens = {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
};

/** The authorization_code grant of a stock client (PKCE verifier, the registered redirect URI). */
export async function exchangeCode(api: TestApi, clientId: string, code: string, verifier: string): Promise<Tokens> {
  const res = await postForm(api, '/oauth2/token', {
    grant_type: 'authorization_code',
    code,
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Tokens;
}
