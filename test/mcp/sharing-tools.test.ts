import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';
import { startIdentityApi } from '../identity/helpers.js';
import { mcpClient, type McpSession } from './helpers.js';

/** The share and grant tools run the same operations as /v0/shares and /v0/grants. */
let api: TestApi;
let owner: McpSession;
let other: McpSession;
let ownerKey: string;
let otherTenant: Awaited<ReturnType<typeof createTenant>>;

beforeAll(async () => {
  api = await startIdentityApi();
  const a = await createTenant(api.ctx);
  ownerKey = a.apiKey;
  otherTenant = await createTenant(api.ctx);
  owner = await mcpClient(api, a.apiKey);
  other = await mcpClient(api, otherTenant.apiKey);
});
afterAll(async () => {
  await owner?.close();
  await other?.close();
  await api?.close();
});

describe('MCP sharing tools', () => {
  it('share mints a link shown once, listed over REST without its key; another drive cannot share what it cannot read', async () => {
    const up = await owner.ok<{ art_id: string }>('upload', { path: 'shared/report.md', content: '# report' });
    const minted = await owner.ok<{ id: string; share_key: string; url: string; role: string; label: string }>(
      'share',
      { resource: up.art_id, expires_in: 3600, label: 'for the auditor' },
    );
    expect(minted.role).toBe('viewer');
    expect(minted.label).toBe('for the auditor');
    expect(minted.share_key.length).toBeGreaterThan(20);
    const list = await fetch(`${api.url}/v0/shares?resource=${up.art_id}`, {
      headers: { authorization: `Bearer ${ownerKey}` },
    });
    const items = (await list.json()).items as Record<string, unknown>[];
    expect(items.map((s) => s.id)).toEqual([minted.id]);
    expect(JSON.stringify(items)).not.toContain(minted.share_key);
    expect((await other.fail('share', { resource: up.art_id })).code).toBe('ARTIFACT_NOT_FOUND');
  });

  it('grant gives another drive read access by id, and a bad role is a tool error with the REST code', async () => {
    const up = await owner.ok<{ art_id: string }>('upload', {
      path: 'shared/granted.md',
      content: 'for the other drive',
    });
    expect((await other.fail('read', { ref: up.art_id })).code).toBe('ARTIFACT_NOT_FOUND');
    const grant = await owner.ok<{ role: string; principal_type: string }>('grant', {
      resource: up.art_id,
      principal: { type: 'user', email: otherTenant.email },
      role: 'viewer',
    });
    expect(grant).toMatchObject({ role: 'viewer', principal_type: 'user' });
    const res = await fetch(`${api.url}/v0/artifacts/${up.art_id}/download`, { headers: otherTenant.auth });
    expect(await res.text()).toBe('for the other drive');
    expect(
      (await owner.fail('grant', { resource: up.art_id, principal: { type: 'anyone' }, role: 'owner' })).code,
    ).toBe('VALIDATION_ERROR');
    const misspelled = await owner.fail('grant', {
      resource: up.art_id,
      principal: { type: 'user', mail: 'x@example.test' },
      role: 'viewer',
    });
    expect(misspelled).toMatchObject({ code: 'VALIDATION_ERROR', arguments: ['principal.mail'] });
  });
});
