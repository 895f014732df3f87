import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';

/** POST /v0/patch: the V4A grammar's cases, all or nothing (issue 57). */
let api: TestApi;
let tenant: Awaited<ReturnType<typeof createTenant>>;
beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api.ctx);
}, 120_000);
afterAll(async () => api?.close());

const put = (path: string, text: string) =>
  fetch(`${api.url}/v0/artifacts/${path}`, {
    method: 'PUT',
    headers: { ...tenant.auth, 'content-type': 'text/plain' },
    body: text,
  }).then((r) => expect(r.status).toBeLessThan(300));
const text = async (path: string) => {
  const meta = await fetch(`${api.url}/v0/artifacts/${path}/meta`, { headers: tenant.auth });
  const { art_id } = (await meta.json()) as { art_id: string };
  return fetch(`${api.url}/v0/artifacts/${art_id}/download`, { headers: tenant.auth }).then((r) => r.text());
};
const status = (path: string) =>
  fetch(`${api.url}/v0/artifacts/${path}/meta`, { headers: tenant.auth }).then((r) => r.status);
const patch = async (body: object, headers: Record<string, string> = {}) => {
  const res = await fetch(`${api.url}/v0/patch`, {
    method: 'POST',
    headers: { ...tenant.auth, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const events = async () => {
  const r = await fetch(`${api.url}/v0/events?limit=200`, { headers: tenant.auth });
  return ((await r.json()) as { items: { seq: number; action: string; run_id: string | null }[] }).items;
};
const lastSeq = async () => (await events()).reduce((m, e) => Math.max(m, e.seq), 0);

describe('POST /v0/patch', () => {
  it('adds, updates with @@ anchors, moves and deletes several files in one patch', async () => {
    await put('p/a.py', 'def f():\n    return 1\n\ndef g():\n    return 2\n');
    await put('p/b.txt', 'one\ntwo\nthree\n');
    await put('p/gone.txt', 'bye\n');
    const r = await patch({
      patch: [
        '*** Begin Patch',
        '*** Add File: p/new.md',
        '+# New',
        '+body',
        '*** Update File: p/a.py',
        '@@ def g():',
        '-    return 2',
        '+    return 3',
        '*** Update File: p/b.txt',
        '*** Move to: p/moved/b.txt',
        ' one',
        '-two',
        '+TWO',
        ' three',
        '*** Delete File: p/gone.txt',
        '*** End Patch',
      ].join('\n'),
      preconditions: { 'p/a.py': 1 },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.files.map((f: { action: string }) => f.action)).toEqual(['add', 'update', 'move', 'delete']);
    expect(await text('p/new.md')).toBe('# New\nbody\n');
    expect(await text('p/a.py')).toBe('def f():\n    return 1\n\ndef g():\n    return 3\n');
    expect(await text('p/moved/b.txt')).toBe('one\nTWO\nthree\n');
    expect(await status('p/b.txt')).toBe(404);
    expect(await status('p/gone.txt')).toBe(404);
  });

  it('applies nothing when a hunk of the last file does not match, naming the hunk and the nearest line', async () => {
    await put('q/x.txt', 'alpha\nbeta\n');
    await put('q/y.txt', 'red\ngreen\nblue\n');
    const before = await lastSeq();
    const r = await patch({
      patch: [
        '*** Begin Patch',
        '*** Add File: q/z.txt',
        '+z',
        '*** Update File: q/x.txt',
        '-beta',
        '+BETA',
        '*** Update File: q/y.txt',
        ' green',
        '-purple',
        '+violet',
        '*** End Patch',
      ].join('\n'),
    });
    expect(r.status).toBe(409);
    expect(r.body.detail.error.code).toBe('PATCH_NOT_APPLIED');
    const failed = r.body.detail.error.files.find((f: { path: string }) => f.path === 'q/y.txt');
    expect(failed.error.hunk).toBe(' green\n-purple\n+violet');
    expect(failed.error.nearest).toEqual({ line: 2, text: 'green' });
    expect(await text('q/x.txt')).toBe('alpha\nbeta\n');
    expect(await status('q/z.txt')).toBe(404);
    expect(await lastSeq()).toBe(before);
  });

  it('refuses an add over a live file, a failed precondition and a patch that does not parse', async () => {
    await put('r/exists.txt', 'x\n');
    const over = await patch({ patch: '*** Begin Patch\n*** Add File: r/exists.txt\n+y\n*** End Patch' });
    expect(over.status).toBe(409);
    expect(over.body.detail.error.files[0].error.message).toContain('already exists');
    const stale = await patch({
      patch: '*** Begin Patch\n*** Update File: r/exists.txt\n-x\n+y\n*** End Patch',
      preconditions: { 'r/exists.txt': 7 },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.detail.error.files[0].error.message).toContain('expected version 7');
    const bad = await patch({ patch: '*** Update File: r/exists.txt\n-x\n+y' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail.error.code).toBe('INVALID_PATCH');
    expect(await text('r/exists.txt')).toBe('x\n');
  });

  it('writes every file in one transaction: a refusal at the last file after the check leaves all unchanged', async () => {
    await put('t/one.txt', 'one\n');
    await put('t/two.txt', 'two\n');
    await put('t/held.txt', 'held\n');
    // The check passes (hunks apply); the last file's write meets an exclusive lease inside the transaction.
    const lease = await fetch(`${api.url}/v0/leases`, {
      method: 'POST',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ paths: ['t/held.txt'], mode: 'exclusive', ttl_s: 60 }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { fence: number } }));
    expect(lease.status).toBe(201);
    const before = await lastSeq();
    const body = {
      patch: [
        '*** Begin Patch',
        '*** Update File: t/one.txt',
        '-one',
        '+ONE',
        '*** Add File: t/new.txt',
        '+fresh',
        '*** Delete File: t/two.txt',
        '*** Update File: t/held.txt',
        '*** Move to: t/moved.txt',
        '-held',
        '+HELD',
        '*** End Patch',
      ].join('\n'),
    };
    const refused = await patch(body);
    expect(refused.status, JSON.stringify(refused.body)).toBe(423);
    expect(refused.body.detail.error.code).toBe('LOCKED');
    expect(await text('t/one.txt')).toBe('one\n');
    expect(await text('t/two.txt')).toBe('two\n');
    expect(await text('t/held.txt')).toBe('held\n');
    expect(await status('t/new.txt')).toBe(404);
    expect(await status('t/moved.txt')).toBe(404);
    expect(await lastSeq()).toBe(before);

    // With the lease's fence the same patch lands whole: one event per change, all of one run.
    const applied = await patch(body, { 'x-drive-fence': String(lease.body.fence) });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(await text('t/one.txt')).toBe('ONE\n');
    expect(await text('t/moved.txt')).toBe('HELD\n');
    expect(await status('t/two.txt')).toBe(404);
    const landed = (await events()).filter((e) => e.seq > before);
    expect(landed.map((e) => e.action).sort()).toEqual(
      ['artifact.created', 'artifact.deleted', 'artifact.renamed', 'artifact.updated', 'artifact.updated'].sort(),
    );
    expect(new Set(landed.map((e) => e.run_id)).size).toBe(1);
    expect(landed[0]!.run_id).toMatch(/^run_/);
  });
});
