import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { route, RouteRegistry } from '../../src/api/http/route.js';
import { errorHandler, unknownRoute } from '../../src/api/middleware/errors.js';
import { createLogger } from '../../src/lib/logger.js';
import { startTestApi, type TestApi } from '../helpers/api.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api?.close());

describe('HTTP skeleton', () => {
  it('healthz answers while the process is up', async () => {
    const res = await fetch(`${api.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toMatch(/[\w-]{8,}/);
  });

  it('readyz is 200 with PostgreSQL, Temporal and S3 reachable', async () => {
    const res = await fetch(`${api.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', temporal: 'ok', s3: 'ok' } });
  });

  it('readyz is 503 naming S3 when the object store is unreachable', async () => {
    const opsToken = 'ops-token-for-the-readiness-test-0123456789';
    const broken = await startTestApi({ S3_ENDPOINT: 'http://127.0.0.1:9', OPS_TOKEN: opsToken });
    try {
      const res = await fetch(`${broken.url}/readyz`);
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(body.detail.error.code).toBe('NOT_READY');
      expect(body.detail.error.message).toBe('not ready: s3 unreachable');
      expect(body.detail.error.checks).toEqual({ postgres: 'ok', temporal: 'ok', s3: 'down' });
      // Anonymous callers never see addresses or error text; the operator does.
      expect(JSON.stringify(body)).not.toContain('127.0.0.1');
      const detailed = await (
        await fetch(`${broken.url}/readyz`, { headers: { authorization: `Bearer ${opsToken}` } })
      ).json();
      expect(detailed.detail.error.checks.s3).toMatch(/^unreachable: /);
      const wrong = await (
        await fetch(`${broken.url}/readyz`, { headers: { authorization: 'Bearer not-the-ops-token-0123456789abcdef' } })
      ).json();
      expect(wrong.detail.error.checks.s3).toBe('down');
    } finally {
      await broken.close();
    }
  });

  it('unknown routes get the envelope with 404', async () => {
    const res = await fetch(`${api.url}/no/such/route`);
    expect(res.status).toBe(404);
    expect((await res.json()).detail.error.code).toBe('NOT_FOUND');
  });

  it('malformed JSON gets the envelope with 400', async () => {
    const res = await fetch(`${api.url}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"unterminated": ',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).detail.error).toEqual({
      code: 'MALFORMED_JSON',
      message: 'request body is not valid JSON',
    });
  });
});

describe('route() validation', () => {
  // A throwaway app wired with the production middleware, so the zod path is checked on its own.
  const app = express();
  app.use(express.json());
  const router = new RouteRegistry().router();
  route(
    router,
    {
      method: 'post',
      path: '/things/:id',
      summary: 'test route',
      params: z.object({ id: z.string().regex(/^thg_/) }),
      body: z.object({ name: z.string().min(1), count: z.number().int() }),
      responses: { 200: { description: 'ok' } },
    },
    ({ params, body }) => ({ id: params.id, ...body }),
  );
  app.use(router, unknownRoute, errorHandler(createLogger('silent', 'test')));

  it('answers 422 with the standard validation-error body naming each field', async () => {
    const server = app.listen(0);
    const port = (server.address() as { port: number }).port;
    try {
      const bad = await fetch(`http://127.0.0.1:${port}/things/nope`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: '', count: 1.5 }),
      });
      expect(bad.status).toBe(422);
      const detail = (await bad.json()).detail;
      expect(detail).toEqual([{ loc: ['path', 'id'], msg: expect.any(String), type: 'invalid_format' }]);

      const badBody = await fetch(`http://127.0.0.1:${port}/things/thg_1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: '', count: 1.5 }),
      });
      expect(badBody.status).toBe(422);
      const issues = (await badBody.json()).detail.map((i: { loc: string[] }) => i.loc.join('.'));
      expect(issues.sort()).toEqual(['body.count', 'body.name']);

      const ok = await fetch(`http://127.0.0.1:${port}/things/thg_1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'a', count: 2 }),
      });
      expect(await ok.json()).toEqual({ id: 'thg_1', name: 'a', count: 2 });
    } finally {
      server.close();
    }
  });
});
