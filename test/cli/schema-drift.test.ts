import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTypesOf, SCHEMA_FILE, servedDocument } from '../../scripts/generate-client.js';
import { startTestApi, type TestApi } from '../helpers/api.js';

/** The SDK's generated types (packages/client/src/schema.d.ts) say what the running service serves. */
let api: TestApi;
beforeAll(async () => {
  // Registrations from 127.0.0.1 are counted across the whole suite: this file's logins must not meet the per-IP limit.
  api = await startTestApi({ REGISTRATIONS_PER_IP_PER_HOUR: '100000' });
});
afterAll(async () => api?.close());

describe('the client types follow /openapi.json', () => {
  it('schema.d.ts is exactly what openapi-typescript makes of the served document', async () => {
    const served = (await (await fetch(`${api.url}/openapi.json`)).json()) as object;
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    const fresh = await clientTypesOf(served);
    // On failure: run `npm run client:generate` and commit packages/client/src/schema.d.ts.
    expect(committed === fresh, 'schema.d.ts is stale: run `npm run client:generate`').toBe(true);
  });

  it('the in-process document client:generate builds is the served one', async () => {
    const served = (await (await fetch(`${api.url}/openapi.json`)).json()) as { servers: unknown };
    const built = JSON.parse(JSON.stringify(await servedDocument())) as { servers: unknown };
    expect({ ...built, servers: served.servers }).toEqual(served);
  });
});
