import { describe, expect, it } from 'vitest';
import { grant, sleep, useParties, type Parties } from './helpers.js';

/**
 * The authorization matrix: every /v0 route of the OpenAPI document (so a route added later is
 * covered by default) that names an artifact, folder, grant or share, tried by drive B against
 * drive A's resources with no grant, each role, an expired grant and a revoked grant. Each cell
 * asserts the status and, unless the role allows the write, that nothing of A changed.
 */
let p: Parties;
// Every cell's writes count against B's hourly budget; the matrix is larger than the default 100.
useParties((parties) => (p = parties), { WRITE_BUDGET_PER_HOUR: '100000' });

type Cell = 'none' | 'viewer' | 'commenter' | 'editor' | 'manager' | 'expired' | 'revoked';
const CELLS: Cell[] = ['none', 'expired', 'revoked', 'viewer', 'commenter', 'editor', 'manager'];
const ID_PARAMS = ['{art_id}', '{fld_id}', '{grn_id}', '{shr_id}', '{run_id}', '{snapshot_id}'];
// Runs and snapshots belong to one drive: no grant reaches another drive's, whatever the role.
const DRIVE_OWN = ['{run_id}', '{snapshot_id}'];
// One body that validates for every JSON route (zod strips the fields a route does not take).
const BODY = JSON.stringify({
  path: 'hijack/p.md',
  description: 'hijacked',
  role: 'manager',
  inherit_grants: false,
  entrypoint: 'hijack.tex',
});
// Strict bodies, which take no field of the shared one.
const BODIES: Record<string, string> = {
  '/v0/artifacts/{art_id}/edit': JSON.stringify({ insert_line: 0, insert_text: 'hijacked line' }),
};

/** What B may expect on a route naming A's resource by id, for a cell. `write` = allowed to change A. */
function expected(cell: Cell, method: string, template: string): { status: number; write: boolean } | 'skip' {
  if (cell === 'none' || cell === 'expired' || cell === 'revoked') return { status: 404, write: false };
  if (DRIVE_OWN.some((x) => template.includes(x))) return { status: 404, write: false };
  if (method === 'GET') return { status: 200, write: false };
  if (cell === 'manager') return 'skip'; // managers may do nearly everything; their writes are tested in grants.test.ts
  // Restoring a version and editing the text write content, as a PUT by id does: an editor may.
  const writesContent =
    template === '/v0/artifacts/{art_id}/versions/{version_number}/restore' ||
    template === '/v0/artifacts/{art_id}/edit';
  if (template.endsWith('/restore') && !writesContent) return { status: 404, write: false }; // the trash is the owner's
  if (
    cell === 'editor' &&
    ((method === 'PUT' && template === '/v0/artifacts/{art_id}') || template.endsWith('/rotate') || writesContent)
  )
    return { status: 200, write: true };
  return { status: 403, write: false };
}

describe('authorization matrix', () => {
  it('every id- or path-bearing /v0 route, every cell', async () => {
    const { api, a, b, c } = p;
    const sql = (q: string, params: unknown[] = []) => api.ctx.orm.em.fork().execute(q, params);
    const folder = (await a.call('POST', '/v0/folders/m', { json: {} })).json;
    // A project config on the folder, so the project routes reach their handlers for readers.
    expect((await a.call('PUT', `/v0/projects/${folder.fld_id}`, { json: { entrypoint: 'main.tex' } })).status).toBe(
      200,
    );
    const art = (await a.put('m/doc.md', 'owner bytes')).json;
    const other = await grant(a, art.art_id, { type: 'agent', id: c.aid }, 'viewer');
    const share = (await a.call('POST', '/v0/shares', { json: { resource: art.art_id } })).json;
    const run = (await a.call('GET', '/v0/runs')).json.items[0];
    const snap = (await a.call('POST', '/v0/snapshots', { json: { label: 'matrix' } })).json;
    const ids: Record<string, string> = {
      '{art_id}': art.art_id,
      '{fld_id}': folder.fld_id,
      '{grn_id}': other.json.id,
      '{shr_id}': share.id,
      '{run_id}': run.run_id,
      '{snapshot_id}': snap.snapshot_id,
      '{version_number}': '1',
      '{path}': 'm/doc.md',
    };
    const snapshot = async () =>
      JSON.stringify([
        await sql(
          'select id, path, version_number, hash, visibility, deleted_at, labels, metadata from artifacts where drive_id = ? order by id',
          [a.driveId],
        ),
        await sql(
          'select id, path, description, inherit_grants, deleted_at from folders where drive_id = ? order by id',
          [a.driveId],
        ),
        await sql(
          `select id, role, expires_at, revoked_at from grants where drive_id = ? and principal_key <> ? order by id`,
          [a.driveId, `email:${b.email}`],
        ),
        await sql('select id, role, key_hash, revoked_at from shares where drive_id = ? order by id', [a.driveId]),
        await sql('select fld_id, entrypoint, engine, auto_compile from projects where drive_id = ? order by fld_id', [
          a.driveId,
        ]),
        await sql('select id, status from compile_jobs where drive_id = ? order by id', [a.driveId]),
        await sql('select id from snapshots where drive_id = ? order by id', [a.driveId]),
      ]);

    const doc = await (await fetch(`${api.url}/openapi.json`)).json();
    const routes: [string, string][] = [];
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      if (!template.startsWith('/v0/') || template.includes('{drive_id}') || template.includes('{upload_id}')) continue;
      if (!ID_PARAMS.some((x) => template.includes(x)) && !template.includes('{path}')) continue;
      for (const method of Object.keys(ops)) routes.push([method.toUpperCase(), template]);
    }
    expect(routes.length).toBeGreaterThan(25);

    const setCell = async (cell: Cell) => {
      await sql(`update grants set revoked_at = now() where principal_key = ? and revoked_at is null`, [
        `email:${b.email}`,
      ]);
      if (cell === 'none') return;
      const role = cell === 'expired' || cell === 'revoked' ? 'editor' : cell;
      const made = [];
      for (const res of [art.art_id, folder.fld_id]) {
        made.push(
          await grant(a, res, { type: 'user', email: b.email }, role, cell === 'expired' ? { expires_in: 1 } : {}),
        );
      }
      if (cell === 'expired') await sleep(1100);
      if (cell === 'revoked')
        for (const g of made) expect((await a.call('DELETE', `/v0/grants/${g.json.id}`)).status).toBe(200);
    };

    const failures: string[] = [];
    for (const cell of CELLS) {
      await setCell(cell);
      for (const [method, template] of routes) {
        const byId = ID_PARAMS.some((x) => template.includes(x));
        const want = byId ? expected(cell, method, template) : { status: -1, write: false };
        if (want === 'skip') continue;
        const path = template.replace(/\{[a-z_]+\}/g, (m) => ids[m] ?? 'x');
        const before = await snapshot();
        const headers: Record<string, string> = { ...b.auth, 'x-drive-actor': 'matrix' };
        let body: string | undefined;
        // PUT is a raw upload on artifact routes and JSON elsewhere (the project config).
        if (method === 'PUT' && template.startsWith('/v0/artifacts/')) body = 'hijacked bytes';
        else if (method !== 'GET' && method !== 'DELETE')
          ((headers['content-type'] = 'application/json'), (body = BODIES[template] ?? BODY));
        const res = await fetch(`${api.url}${path}`, { method, headers, body });
        const text = await res.text();
        const cellName = `${cell} ${method} ${template}`;
        if (want.status !== -1 && res.status !== want.status)
          failures.push(`${cellName}: ${res.status} (wanted ${want.status}) ${text.slice(0, 160)}`);
        if (!want.write && (await snapshot()) !== before) failures.push(`${cellName}: A changed`);
        // A non-reader never sees A's data in the answer.
        if (want.status === 404 && (text.includes('m/doc.md') || text.includes(a.driveId)))
          failures.push(`${cellName}: leaked`);
      }
    }
    expect(failures).toEqual([]);
  });
});
