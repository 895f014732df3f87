import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/lib/logger.js';
import { useTestApi, type DriveClient } from '../artifacts/client.js';
import type { TestApi } from '../helpers/api.js';

let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, c) => {
  api = a;
  d = c;
});

describe('logs never carry secrets', () => {
  it('request lines name share keys, upload tokens, claim codes and bearer tokens only as [redacted]', async () => {
    const lines: string[] = [];
    let shareKey = '';
    const logger = api.ctx.logger as unknown as { info: (...args: unknown[]) => void };
    const original = logger.info;
    logger.info = function (this: unknown, ...args: unknown[]) {
      lines.push(JSON.stringify(args));
      return original.apply(this, args);
    };
    try {
      await d.put('logs/secret.md', '# secret\n');
      const share = await d.call('POST', '/v0/shares', { json: { resource: 'logs/secret.md', role: 'viewer' } });
      expect(share.status).toBe(201);
      shareKey = share.json.share_key;
      expect((await fetch(`${api.url}/s/${shareKey}`)).status).toBe(200);
      // An upload token's shape is enough: the line is written whether or not the token is valid.
      await fetch(`${api.url}/v0/upload/UPLOADTOKEN-SECRET-42`, { method: 'PUT', body: 'x' });
      await fetch(`${api.url}/claim?code=CLAIMCODE-SECRET-42`);
      await fetch(`${api.url}/v0/drives/me`, { headers: { authorization: 'Bearer BEARER-SECRET-42' } });
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      logger.info = original;
    }
    const all = lines.join('\n');
    expect(all).toContain('/s/[redacted]');
    expect(all).toContain('/v0/upload/[redacted]');
    for (const secret of [shareKey, 'UPLOADTOKEN-SECRET-42', 'CLAIMCODE-SECRET-42', 'BEARER-SECRET-42', d.apiKey])
      expect(all).not.toContain(secret);
    expect(shareKey.length).toBeGreaterThan(8);
  });

  it('redactUrl keeps the shape of a path and drops queries', () => {
    expect(redactUrl('/s/abcDEF123/raw')).toBe('/s/[redacted]/raw');
    expect(redactUrl('/v0/upload/upt_123.abc')).toBe('/v0/upload/[redacted]');
    expect(redactUrl('/claim?code=XYZ')).toBe('/claim?[query redacted]');
    expect(redactUrl('/v0/artifacts/docs/a.md')).toBe('/v0/artifacts/docs/a.md');
  });
});
