import { randomBytes } from 'node:crypto';

/** What the out-of-process checks (topology, faults, bench:search) need to act as an agent over HTTP. */

/** Letters only, so the English text search configuration keeps it one token. */
export const uniqueWord = () => `zq${[...randomBytes(10)].map((b) => String.fromCharCode(97 + (b % 26))).join('')}`;

/** The JSON body of a response with the expected status, or an error naming the request and the answer. */
export async function expectJson<T>(res: Response, what: string, status = 200): Promise<T> {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** Registers an anonymous agent identity and exchanges its assertion for an access token; returns the bearer header. */
export async function registerAnonymousAgent(url: string): Promise<{ authorization: string }> {
  const reg = await expectJson<{ identity_assertion: string }>(
    await fetch(`${url}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'anonymous' }),
    }),
    'POST /agent/identity',
    201,
  );
  const token = await expectJson<{ access_token: string }>(
    await fetch(`${url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: reg.identity_assertion,
      }).toString(),
    }),
    'POST /oauth2/token',
  );
  return { authorization: `Bearer ${token.access_token}` };
}
