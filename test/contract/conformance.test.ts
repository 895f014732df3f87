import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';

/** Issue 17's conformance leftovers: 422 body, source object, 405/Allow, 431 JSON, the document's error statuses. */
let api: TestApi;
let auth: Record<string, string>;
beforeAll(async () => {
  api = await startTestApi();
  auth = (await createTenant(api.ctx)).auth;
});
afterAll(async () => api?.close());

const call = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
  fetch(`${api.url}${path}`, { method, headers: { ...auth, ...headers }, body });

/** node:http, for what fetch refuses to send (TRACE, oversized headers). */
function raw(method: string, path: string, headers: Record<string, string> = {}) {
  const { port } = new URL(api.url);
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, headers: { ...auth, ...headers } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

describe('422 is the standard validation-error body (spec 4, 7.2)', () => {
  it('lists {loc, msg, type} per failing field, with no envelope', async () => {
    const res = await call('GET', '/v0/artifacts?limit=0&file_type=nope');
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(['detail']);
    expect(body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual([
      'query.file_type',
      'query.limit',
    ]);
    for (const d of body.detail)
      expect(d).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
  });

  it('every other error keeps the envelope', async () => {
    const res = await call('GET', '/v0/artifacts?cursor=!!');
    expect(res.status).toBe(400);
    expect((await res.json()).detail.error.code).toBe('BAD_CURSOR');
  });
});

describe('source is always an object (spec 2.2)', () => {
  it('upload, get, listing and trash give {refs: []} for an artifact uploaded without a source', async () => {
    const up = await (await call('PUT', '/v0/artifacts/src/plain.txt', { 'content-type': 'text/plain' }, 'x')).json();
    expect(up.source).toEqual({ refs: [] });
    expect((await (await call('GET', `/v0/artifacts/${up.art_id}`)).json()).source).toEqual({ refs: [] });
    const page = await (await call('GET', '/v0/artifacts?prefix=src/')).json();
    expect(page.items.map((a: { source: unknown }) => a.source)).toEqual([{ refs: [] }]);
    expect((await call('DELETE', `/v0/artifacts/${up.art_id}`)).status).toBe(200);
    const me = await (await call('GET', '/v0/drives/me')).json();
    const trash = await (await call('GET', `/v0/drives/${me.drive_id ?? me.id}/trash`)).json();
    expect(trash.items.find((a: { art_id: string }) => a.art_id === up.art_id).source).toEqual({ refs: [] });
  });

  it('a given source is kept', async () => {
    const source = { refs: [{ type: 'url', id: 'https://example.test/a' }] };
    const up = await (
      await call('PUT', '/v0/artifacts/src/given.txt', { 'x-drive-source': JSON.stringify(source) }, 'x')
    ).json();
    expect(up.source).toEqual(source);
  });
});

describe('OPTIONS and 405 follow the document', () => {
  let doc: { paths: Record<string, Record<string, unknown>> };
  beforeAll(async () => {
    doc = await (await fetch(`${api.url}/openapi.json`)).json();
  });
  const declared = (p: string) =>
    Object.keys(doc.paths[p])
      .map((m) => m.toUpperCase())
      .sort();
  const allow = (res: Response) =>
    res.headers
      .get('allow')!
      .split(', ')
      .filter((m) => m !== 'HEAD' && m !== 'OPTIONS')
      .sort();

  it('OPTIONS answers 204 with Allow = the methods the document declares for the path', async () => {
    for (const [template, concrete] of [
      ['/v0/search', '/v0/search'],
      ['/healthz', '/healthz'],
      ['/v0/artifacts/{art_id}', '/v0/artifacts/art_0123456789abcdefghjkmnpqrs'],
      ['/v0/artifacts/{path}', '/v0/artifacts/some/file.txt'],
      ['/v0/folders/{path}/move', '/v0/folders/a/b/move'],
    ]) {
      const res = await fetch(`${api.url}${concrete}`, { method: 'OPTIONS' });
      expect(res.status, concrete).toBe(204);
      expect(allow(res), concrete).toEqual(declared(template));
    }
  });

  it('an undeclared method is 405 with Allow and the envelope', async () => {
    for (const [method, path, expected] of [
      ['TRACE', '/healthz', ['GET']],
      ['PATCH', '/v0/search', ['GET']],
      ['POST', '/v0/drives/me', ['GET', 'PATCH']],
      ['PATCH', '/v0/artifacts/some/file.txt', ['DELETE', 'PUT']],
      ['GET', '/v0/artifacts/notes/a.md', ['DELETE', 'PUT']],
    ] as const) {
      const res = await raw(method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(
        String(res.headers.allow)
          .split(', ')
          .filter((m) => m !== 'HEAD' && m !== 'OPTIONS')
          .sort(),
      ).toEqual([...expected].sort());
      expect(JSON.parse(res.body).detail.error.code).toBe('METHOD_NOT_ALLOWED');
    }
  });
});

describe('431 from the HTTP server itself', () => {
  it('carries a JSON envelope', async () => {
    const { status, headers, body } = await raw('GET', '/healthz', { 'x-big': 'a'.repeat(20_000) });
    expect(status).toBe(431);
    expect(headers['content-type']).toBe('application/json');
    expect(JSON.parse(body)).toEqual({ detail: { error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) } } });
  });
});

describe('the document declares each error status an operation can return', () => {
  it('authenticated /v0 operations list 400, 401, 404, 422, 429 and 503 with the envelope (422: HTTPValidationError)', async () => {
    const doc = await (await fetch(`${api.url}/openapi.json`)).json();
    const search = doc.paths['/v0/search'].get.responses;
    for (const s of ['400', '401', '404', '422', '429', '503']) expect(search[s], s).toBeDefined();
    expect(search['422'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/HTTPValidationError',
    });
    expect(search['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
    expect(search['400'].description).toContain('BAD_CURSOR');
    expect(doc.paths['/readyz'].get.responses['401']).toBeUndefined();
    expect(
      doc.paths['/oauth2/token'].post.responses['400'].content['application/json'].schema.properties,
    ).toHaveProperty('error_description');
  });
});
