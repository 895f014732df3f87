import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeWrites } from '../../src/api/http/route.js';
import { RouteRegistry, restRouter } from '../../src/api/index.js';
import { mintApiKey } from '../../src/identity/api-keys.js';
import type { TestApi } from '../helpers/api.js';
import { freshConfigHome, runCli } from '../helpers/cli.js';
import { createTenant } from '../helpers/tenant.js';
import { mcpClient, type McpSession } from '../mcp/helpers.js';
import { authorizeQuery, exchangeCode, pkce, postForm, registerClient, type Tokens } from '../mcp/oauth-helpers.js';
import {
  bearer,
  JWT_BEARER,
  registerAnonymous,
  startIdentityApi,
  tokenRequest,
  uniqueEmail,
  WebClient,
} from './helpers.js';

/**
 * Read-only connections (issue 36, point 5): a read-only API key, an access token narrowed with scope=drive:read and an
 * MCP OAuth token granted read only read, list, search and find; every write route of the route registry and every
 * write tool answers 403 CREDENTIAL_READ_ONLY (so a route or tool added later is covered by default), changes nothing
 * and spends no write budget.
 */
const TOOL_LIST_MAX = 24_000;

let api: TestApi;
beforeAll(async () => {
  api = await startIdentityApi({ WRITE_BUDGET_PER_HOUR: '100000' });
});
afterAll(async () => {
  await api?.close();
});

interface Party {
  driveId: string;
  /** Reads and writes the drive (to seed it). */
  rw: string;
  /** The read-only credential under test. */
  ro: string;
  label: string;
}

const call = (credential: string, method: string, path: string, body?: unknown) =>
  fetch(`${api.url}${path}`, {
    method,
    headers: {
      ...bearer(credential),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function exchange(assertion: string, scope?: string) {
  const res = await tokenRequest(api, { grant_type: JWT_BEARER, assertion, ...(scope ? { scope } : {}) });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** A claimed drive with a read-write key and a read-only key minted for it. */
async function keyParty(): Promise<Party> {
  const t = await createTenant(api.ctx);
  const { key } = await mintApiKey(api.ctx.orm.em.fork(), t.driveId, 'ro', true);
  return { driveId: t.driveId, rw: t.apiKey, ro: key, label: 'read-only API key' };
}

/** An agent's drive with a plain access token and one it narrowed itself with scope=drive:read. */
async function tokenParty(): Promise<Party> {
  const reg = await registerAnonymous(api);
  const rw = await exchange(reg.identity_assertion);
  const ro = await exchange(reg.identity_assertion, 'drive:read');
  expect(rw.body.scope).toBe('pre_claim');
  expect(ro.body.scope).toBe('pre_claim drive:read');
  return { driveId: reg.drive_id, rw: rw.body.access_token, ro: ro.body.access_token, label: 'read-only access token' };
}

/**
 * The snapshot once the seed's background work (indexing, compiles) has stopped changing rows: two readings 300 ms
 * apart agree (bounded), so what changes after it is the refused writes' doing.
 */
async function settled(driveId: string) {
  let last = await snapshot(driveId);
  for (let i = 0; i < 60; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await snapshot(driveId);
    // Stable, and nothing left for the indexer (which stamps indexed_at when it gets to the seed).
    const [pending] = await api.ctx.orm.em
      .fork()
      .execute(`select count(*)::int as n from artifacts where drive_id = ? and indexed_at is null`, [driveId]);
    if (now === last && pending.n === 0) return now;
    last = now;
  }
  throw new Error('the drive kept changing after the seed');
}

/** What a refused write could have changed, for the whole drive. */
async function snapshot(driveId: string) {
  const em = api.ctx.orm.em.fork();
  const out: unknown[] = [await em.execute(`select deleted_at, settings from drives where id = ?`, [driveId])];
  for (const table of [
    'artifacts',
    'artifact_versions',
    'folders',
    'events',
    'grants',
    'shares',
    'projects',
    'compile_jobs',
    'webhooks',
    'upload_sessions',
    'upload_tokens',
    'feedback_tickets',
    // The write budgets: a refused write spends nothing.
    'rate_counters',
  ])
    out.push(
      await em.execute(
        `select md5(coalesce(string_agg(t::text, ',' order by t::text), '')) as h from ${table} t where drive_id = ?`,
        [driveId],
      ),
    );
  return JSON.stringify(out);
}

/** Seeds a drive with a folder and an artifact, returning values for every path parameter of the route registry. */
async function seed(p: Party): Promise<Record<string, string>> {
  const folder = await call(p.rw, 'POST', '/v0/folders/ro', {});
  expect(folder.status, await folder.clone().text()).toBe(201);
  const put = await fetch(`${api.url}/v0/artifacts/ro/doc.md`, {
    method: 'PUT',
    headers: { ...bearer(p.rw), 'content-type': 'text/markdown' },
    body: '# read only\n\nneedle in the doc',
  });
  expect(put.status, await put.clone().text()).toBe(200);
  const share = await call(p.rw, 'POST', '/v0/shares', { resource: ((await put.json()) as { art_id: string }).art_id });
  const art = (await (await call(p.rw, 'GET', '/v0/artifacts/ro/doc.md/meta')).json()) as { art_id: string };
  return {
    art_id: art.art_id,
    fld_id: ((await folder.json()) as { fld_id: string }).fld_id,
    shr_id: share.status === 201 ? ((await share.json()) as { id: string }).id : 'shr_none',
    path: 'ro/doc.md',
    version_number: '1',
    drive_id: p.driveId,
    grn_id: 'grn_none',
    job_id: 'job_none',
    upload_id: 'upl_none',
    webhook_id: 'whk_none',
    fbk_id: 'fbk_none',
    run_id: 'run_none',
    snapshot_id: 'snp_none',
    lease_id: `lse_${'0'.repeat(26)}`,
  };
}

/** The authenticated routes the REST door declares (its routers record into a registry of their own here). */
function authenticatedRoutes() {
  const routes = new RouteRegistry();
  restRouter(routes, api.ctx, {} as Parameters<typeof restRouter>[2]);
  return routes.specs.filter((r) => r.auth);
}

const fill = (template: string, ids: Record<string, string>) =>
  template.replace(/[:*](\w+)/g, (_, name: string) => {
    if (!(name in ids)) throw new Error(`no value for path parameter ${name} of ${template}`);
    return ids[name];
  });

describe('read-only credentials', () => {
  it('the read-only scope is published, and the exchange refuses unknown scopes', async () => {
    const as = (await (await fetch(`${api.url}/.well-known/oauth-authorization-server`)).json()) as {
      scopes_supported: string[];
    };
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['drive', 'drive:read']));
    const pr = (await (await fetch(`${api.url}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      scopes_supported: string[];
    };
    expect(pr.scopes_supported).toEqual(['drive', 'drive:read']);
    const reg = await registerAnonymous(api);
    const bad = await exchange(reg.identity_assertion, 'drive:admin');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_scope');
    const asked = await exchange(reg.identity_assertion, 'drive');
    expect(asked.body.scope).toBe('pre_claim');
  });

  it('/openapi.json lists 403 CREDENTIAL_READ_ONLY on every authenticated write route and on no read route', async () => {
    const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
    };
    let writes = 0;
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        const listed = JSON.stringify(op.responses['403'] ?? '').includes('CREDENTIAL_READ_ONLY');
        expect(listed, `${method} ${path}`).toBe(Boolean(op.security) && method !== 'get');
        if (listed) writes++;
      }
    expect(writes).toBeGreaterThan(30);
  });

  for (const make of [keyParty, tokenParty]) {
    it(`every REST write route of the registry answers 403 CREDENTIAL_READ_ONLY to a ${make === keyParty ? 'read-only key' : 'narrowed access token'}; reads work`, async () => {
      const p = await make();
      const ids = await seed(p);
      const routes = authenticatedRoutes();
      const writes = routes.filter((r) => routeWrites(r));
      expect(writes.length).toBeGreaterThan(30);
      console.log(`${p.label}: ${writes.length} write routes of ${routes.length} authenticated routes`);
      const before = await settled(p.driveId);
      for (const r of writes) {
        const res = await call(p.ro, r.method.toUpperCase(), fill(r.path, ids), r.method === 'delete' ? undefined : {});
        const body = (await res.json()) as { detail: { error: { code: string; message: string } } };
        expect(res.status, `${r.method} ${r.path}: ${JSON.stringify(body)}`).toBe(403);
        expect(body.detail.error.code).toBe('CREDENTIAL_READ_ONLY');
        expect(body.detail.error.message).toMatch(/read-only; to write, /);
      }
      expect(await snapshot(p.driveId)).toBe(before);

      // Reads, lists, searches and finds.
      const me = (await (await call(p.ro, 'GET', '/v0/drives/me')).json()) as { read_only: boolean };
      expect(me.read_only).toBe(true);
      expect(((await (await call(p.rw, 'GET', '/v0/drives/me')).json()) as { read_only: boolean }).read_only).toBe(
        false,
      );
      const bytes = await call(p.ro, 'GET', `/v0/artifacts/${ids.art_id}/download`);
      expect(await bytes.text()).toContain('needle');
      for (const path of [
        '/v0/artifacts?prefix=ro/',
        `/v0/folders/${ids.fld_id}`,
        `/v0/artifacts/${ids.art_id}/versions`,
        '/v0/search?q=needle',
        '/v0/find?q=doc&mode=lexical',
        '/v0/events',
        `/v0/grants?resource=${ids.art_id}`,
        `/v0/shares?resource=${ids.art_id}`,
      ]) {
        const res = await call(p.ro, 'GET', path);
        expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
      }
    });
  }

  it('the CLI (over REST) reads with a read-only key and reports its writes as CREDENTIAL_READ_ONLY', async () => {
    const p = await keyParty();
    await seed(p);
    const env = { XDG_CONFIG_HOME: freshConfigHome(), AGENT_DRIVE_URL: api.url, AGENT_DRIVE_API_KEY: p.ro };
    const put = await runCli(['put', '-', 'ro/new.txt'], env, 'no\n');
    expect(put.code).not.toBe(0);
    expect(put.stderr).toMatch(
      /CREDENTIAL_READ_ONLY: this credential is read-only; to write, use a read-write API key/,
    );
    const ls = await runCli(['ls', 'ro/'], env);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toContain('doc.md');
    expect((await runCli(['whoami'], env)).stdout).toContain('API key, read only');
  });

  it('MCP: a read-only key, access token and OAuth token list only the tools they may call, within budget; every write tool is refused', async () => {
    const keys = await keyParty();
    const tokens = await tokenParty();
    const oauth = await readOnlyOAuthToken();
    const full = await mcpClient(api, keys.rw);
    const all = (await full.client.listTools()).tools;
    await full.ok('upload', { path: 'mcp/a.md', content: 'needle for mcp' });
    await full.close();
    const writeTools = all.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name);
    const readTools = all.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name);
    expect(writeTools).toEqual(expect.arrayContaining(['upload', 'edit', 'delete', 'move', 'share', 'upload_url']));
    console.log(
      `tools/list: ${all.length} tools, ${writeTools.length} of them write; full size ${JSON.stringify({ tools: all }).length}`,
    );
    for (const [label, credential] of [
      ['key', keys.ro],
      ['access token', tokens.ro],
      ['OAuth token', oauth],
    ]) {
      const s: McpSession = await mcpClient(api, credential);
      const listed = await s.client.listTools();
      expect(
        listed.tools.map((t: Tool) => t.name),
        label,
      ).toEqual(readTools);
      const size = JSON.stringify(listed).length;
      console.log(`read-only tools/list (${label}): ${listed.tools.length} tools, ${size} characters`);
      expect(size).toBeLessThanOrEqual(TOOL_LIST_MAX);
      for (const name of writeTools) {
        const err = await s.fail(name, { path: 'x.md', content: 'x', ref: 'mcp/a.md' });
        expect(err, `${label} ${name}`).toMatchObject({ code: 'CREDENTIAL_READ_ONLY', status: 403 });
      }
      const o = await s.ok<{ drive: { read_only: boolean } }>('overview');
      expect(o.drive.read_only).toBe(true);
      await s.ok('list', {});
      await s.ok('search', { q: 'needle' });
      await s.ok('find', { q: 'needle', mode: 'lexical' });
      await s.close();
    }
    const s = await mcpClient(api, keys.ro);
    expect(await s.ok<{ content: string }>('read', { ref: 'mcp/a.md' })).toMatchObject({ content: 'needle for mcp' });
    await s.close();
  });
});

/**
 * A client that asks for scope=drive:read is offered read only on the consent page and gets a `drive:read` token
 * (refreshing keeps it).
 */
async function readOnlyOAuthToken(): Promise<string> {
  const web = new WebClient(api.url);
  await web.signUp(uniqueEmail('ro-consent'));
  const client = await registerClient(api);
  const { verifier, challenge } = pkce();
  const qs = authorizeQuery(client.client_id, challenge, { scope: 'drive:read', state: 'ro' });
  const page = await web.get(`/oauth2/authorize?${qs}`);
  expect(page.res.status, page.body).toBe(200);
  expect(page.body).toContain('Read only');
  expect(page.body).not.toContain('value="read_write"');
  // Asking for more on the form than the client asked for gets no more.
  const posted = await web.post('/oauth2/authorize', {
    ...Object.fromEntries(qs),
    csrf: WebClient.csrfOf(page.body),
    decision: 'create',
    access: 'read_write',
  });
  expect(posted.res.status, posted.body).toBe(303);
  const code = new URL(posted.res.headers.get('location')!).searchParams.get('code')!;
  const form = (fields: Record<string, string>) => postForm(api, '/oauth2/token', fields);
  const t = await exchangeCode(api, client.client_id, code, verifier);
  expect(t.scope).toBe('drive:read');
  const refreshed = (await (
    await form({ grant_type: 'refresh_token', refresh_token: t.refresh_token, client_id: client.client_id })
  ).json()) as Tokens;
  expect(refreshed.scope).toBe('drive:read');
  return refreshed.access_token;
}
