import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { startIdentityApi } from '../identity/helpers.js';
import { mcpClient, type McpSession } from './helpers.js';

let api: TestApi;
let owner: Awaited<ReturnType<typeof createTenant>>;
let grantee: Awaited<ReturnType<typeof createTenant>>;
let mcp: McpSession;

beforeAll(async () => {
  api = await startIdentityApi();
  owner = await createTenant(api.ctx);
  grantee = await createTenant(api.ctx);
  mcp = await mcpClient(api, grantee.apiKey);
});
afterAll(async () => {
  await mcp?.close();
  await api?.close();
});

const rest = (t: typeof owner, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${api.url}${path}`, {
    method,
    headers: {
      ...t.auth,
      ...(body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('MCP edit through a grant', () => {
  it("edits the granted artifact on its owner's drive by id, never the grantee's same-path file; a viewer may not", async () => {
    const doc = await (
      await rest(owner, 'PUT', '/v0/artifacts/team/doc.md', 'shared line\n', { 'content-type': 'text/markdown' })
    ).json();
    await rest(grantee, 'PUT', '/v0/artifacts/team/doc.md', 'my own line\n', { 'content-type': 'text/markdown' });
    const grant = await rest(owner, 'POST', '/v0/grants', {
      resource: doc.art_id,
      principal: { type: 'user', email: grantee.email },
      role: 'viewer',
    });
    expect(grant.status).toBe(201);
    const grantId = (await grant.json()).grn_id;

    expect(
      (await mcp.fail('edit', { ref: doc.art_id, edits: [{ old_text: 'shared', new_text: 'viewer' }] })).code,
    ).toBe('PERMISSION_DENIED');

    expect((await rest(owner, 'PATCH', `/v0/grants/${grantId}`, { role: 'editor' })).status).toBe(200);
    const done = await mcp.ok<{
      applied: boolean;
      artifact: { art_id: string; drive_id: string; version_number: number };
    }>('edit', {
      ref: doc.art_id,
      edits: [{ old_text: 'shared', new_text: 'edited' }],
    });
    expect(done.artifact).toMatchObject({ art_id: doc.art_id, drive_id: owner.driveId, version_number: 2 });
    expect(await (await rest(owner, 'GET', `/v0/artifacts/${doc.art_id}/download`)).text()).toBe('edited line\n');
    const mine = await (await rest(grantee, 'GET', '/v0/artifacts/team/doc.md/meta')).json();
    expect(mine).toMatchObject({ version_number: 1, drive_id: grantee.driveId });
  });
});
