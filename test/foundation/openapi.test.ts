import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api?.close());

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1.0 document, version 0.0.1, listing the registered routes', async () => {
    const res = await fetch(`${api.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.0.1');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz']));
    const result = await validate(structuredClone(doc));
    expect(result).toMatchObject({ valid: true });
  });

  it('the validator used above rejects a broken document (so the check can fail)', async () => {
    const res = await fetch(`${api.url}/openapi.json`);
    const doc = await res.json();
    doc.paths['/healthz'].get.responses = { '200': { content: 'not an object' } };
    const result = await validate(doc);
    expect(result.valid).toBe(false);
  });
});
