import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { type DriveClient, sqlOn, useTestApi } from '../artifacts/client.js';

/**
 * The same bad-input shapes on every /v0 operation of the served document (so a route added later
 * is covered): an undecodable path parameter, a NUL in each query parameter, a NUL inside a JSON
 * body string. Each is a 400 INVALID_REQUEST in the envelope, and the drive holds the same rows after.
 */
let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, dc) => {
  api = a;
  d = dc;
});

interface Operation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content?: Record<string, unknown> };
}

async function rowsOfDrive() {
  const tables = ['artifacts', 'folders', 'events', 'upload_sessions', 'grants', 'shares'];
  const counts = await Promise.all(
    tables.map(
      async (t) =>
        (await sqlOn(api, `select count(*)::int n from ${t} where drive_id = ?`, [d.driveId]))[0].n as number,
    ),
  );
  return Object.fromEntries(tables.map((t, i) => [t, counts[i]]));
}

describe('bad input on every /v0 operation', () => {
  it('undecodable path parameters, NUL in query parameters and in JSON strings: 400 INVALID_REQUEST, nothing written', async () => {
    const seed = (await d.put('seed/a.md', 'seed')).json as { art_id: string };
    const zeros = '0'.repeat(26);
    // Well-formed values, so each request reaches the operation the template names (an art_id that is not an id is the
    // path form).
    const fill = (name: string) =>
      (
        ({
          art_id: seed.art_id,
          drive_id: d.driveId,
          version_number: '1',
          fld_id: `fld_${zeros}`,
          grn_id: `grn_${zeros}`,
          shr_id: `shr_${zeros}`,
          upload_id: `upl_${zeros}`,
          fbk_id: `fbk_${zeros}`,
        }) as Record<string, string>
      )[name] ?? 'x';
    const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const before = await rowsOfDrive();
    const seen: string[] = [];
    let checked = 0;
    for (const [template, ops] of Object.entries(doc.paths)) {
      if (!template.startsWith('/v0/')) continue;
      for (const [method, op] of Object.entries(ops)) {
        const M = method.toUpperCase();
        const params = op.parameters ?? [];
        const filled = template.replace(/\{([^}]+)\}/g, (_m, name: string) => fill(name));
        const cases: [string, string, { json?: unknown }][] = [];
        if (/\{[^}]+\}/.test(template)) cases.push(['path %FF', template.replace(/\{[^}]+\}/g, '%FF'), {}]);
        for (const q of params.filter((p) => p.in === 'query'))
          cases.push([`query ${q.name}`, `${filled}?${q.name}=a%00b`, {}]);
        if (op.requestBody?.content?.['application/json'])
          cases.push([
            'JSON NUL',
            filled,
            { json: { path: 'p\u0000', description: '\u0000', resource: 'x', nested: { k: ['\u0000'] } } },
          ]);
        for (const [what, url, opts] of cases) {
          const r = await d.call(M, url, opts);
          checked++;
          if (r.status !== 400 || r.code !== 'INVALID_REQUEST')
            seen.push(`${M} ${url} (${what}): ${r.status} ${r.code}`);
        }
      }
    }
    expect(seen).toEqual([]);
    expect(checked).toBeGreaterThan(60);
    expect(await rowsOfDrive()).toEqual(before);
  });
});
