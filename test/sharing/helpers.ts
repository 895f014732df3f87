import { afterAll, beforeAll } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { driveClient, type DriveClient } from '../artifacts/client.js';
import { accessTokenFor, bearer, registerAnonymous, startIdentityApi } from '../identity/helpers.js';

/** A drive client whose credential is an agent's access token (grants name it by its aid_). */
export async function agentClient(api: TestApi) {
  const reg = await registerAnonymous(api);
  const token = await accessTokenFor(api, reg.identity_assertion);
  const base = await driveClient(api);
  const auth = bearer(token);
  const call: DriveClient['call'] = async (method, path, opts = {}) =>
    base.call(method, path, { ...opts, headers: { ...auth, ...(opts.headers ?? {}) } });
  return {
    ...base,
    driveId: reg.drive_id,
    aid: reg.agent_identity_id,
    auth,
    call,
    get: (p: string, h: Record<string, string> = {}) => call('GET', p, { headers: h }),
    put: (p: string, body: string | Uint8Array, h: Record<string, string> = {}) =>
      call('PUT', `/v0/artifacts/${p}`, {
        body: (typeof body === 'string' ? Buffer.from(body) : body) as BodyInit,
        headers: h,
      }),
    events: async (q = '') => (await call('GET', `/v0/events${q}`)).json.items as any[],
  };
}

export interface Parties {
  api: TestApi;
  /** The owner of the shared resources. */
  a: DriveClient;
  /** Another drive (API key); grants name it as a user by its owner email. */
  b: DriveClient & { email: string };
  /** An anonymous agent with its own drive; grants name it by agent id. */
  c: Awaited<ReturnType<typeof agentClient>>;
  /** A drive no grant names. */
  x: DriveClient;
}

export function useParties(ready: (p: Parties) => void, overrides: Record<string, string> = {}) {
  let api: TestApi | undefined;
  beforeAll(async () => {
    api = await startIdentityApi(overrides);
    const a = await driveClient(api);
    const bClient = await driveClient(api);
    const [row] = await api.ctx.orm.em
      .fork()
      .execute<{ owner_email: string }[]>('select owner_email from drives where id = ?', [bClient.driveId]);
    const c = await agentClient(api);
    const x = await driveClient(api);
    ready({ api, a, b: { ...bClient, email: row.owner_email }, c, x });
  });
  afterAll(async () => api?.close());
}

export const grant = (
  who: DriveClient,
  resource: string,
  principal: Record<string, unknown>,
  role: string,
  extra: Record<string, unknown> = {},
) => who.call('POST', '/v0/grants', { json: { resource, principal, role, ...extra } });

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
