import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveClient, type DriveClient } from '../artifacts/client.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { runHeader } from '../history/drive-state.js';
import { grant } from '../sharing/helpers.js';

/** Issue 54, findings 5, 6 and 8, against the real stack. */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api?.close());

const rfc8187 = (name: string) =>
  `UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;

describe('finding 5: run ids are per principal', () => {
  it("a grantee's X-Drive-Run-Id never joins the owner's run nor renames it; a run is named by its first actor", async () => {
    const owner = await driveClient(api);
    const grantee = await driveClient(api);
    const task = { ...runHeader('task-1'), 'x-drive-actor': 'owner-bot' };
    const doc = (await owner.put('plan.md', 'v1', task)).json;
    await owner.put('notes.md', 'n', { ...task, 'x-drive-actor': 'owner-bot-later' });
    expect((await grant(owner, doc.art_id, { type: 'user', email: grantee.email }, 'editor')).status).toBe(201);

    const hijack = await grantee.call('PUT', `/v0/artifacts/${doc.art_id}`, {
      body: 'grantee edit',
      headers: { ...runHeader('task-1'), 'x-drive-actor': 'intruder' },
    });
    expect(hijack.status, hijack.bytes.toString()).toBe(200);

    const run = (await owner.get('/v0/runs/task-1')).json;
    expect(run.actor_name).toBe('owner-bot');
    expect(run.changed.map((c: { path: string }) => c.path)).toEqual(['plan.md', 'notes.md']);
    // The grantee's change is its own run on the owner's drive: the id qualified by the grantee's drive.
    const theirs = `task-1:${grantee.driveId.slice(-12)}`;
    const runs = (await owner.get('/v0/runs')).json.items as { run_id: string; actor_name: string }[];
    expect(runs.find((r) => r.run_id === theirs)).toMatchObject({ actor_name: 'intruder' });
    const [event] = await owner.events(`?run_id=${encodeURIComponent(theirs)}`);
    expect(event).toMatchObject({ action: 'artifact.updated', art_id: doc.art_id });
  });
});

describe('finding 6: X-Drive-Filename has no bidi or invisible characters and is NFC', () => {
  it('refuses Unicode format characters, keeps NFC, and keeps no name that does not map to the path', async () => {
    const d = await driveClient(api);
    for (const name of ['invoice\u202Efdp.exe', 'a\u200Bb.md', 'x\u2066.md', '\uFEFFbom.md']) {
      const r = await d.put('invoice.exe', 'x', { 'x-drive-filename': rfc8187(name) });
      expect(r.code, JSON.stringify(name)).toBe('INVALID_FILENAME');
    }
    const begun = await d.call('POST', '/v0/uploads', {
      json: { path: 'big.bin', size_bytes: 10 },
      headers: { 'x-drive-filename': rfc8187('big\u202E.bin') },
    });
    expect(begun.code).toBe('INVALID_FILENAME');

    const decomposed = 'Re\u0301sume\u0301.md';
    const put = await d.put('Resume.md', 'cv', { 'x-drive-filename': rfc8187(decomposed) });
    expect(put.status, put.bytes.toString()).toBe(200);
    expect(put.json.filename).toBe(decomposed.normalize('NFC'));
    const down = await d.get(`/v0/artifacts/${put.json.art_id}/download`);
    expect(down.headers.get('content-disposition')).toContain(`filename*=UTF-8''R%C3%A9sum%C3%A9.md`);

    // A name the rule does not map to the path's last segment is not kept.
    const other = await d.put('report.md', 'r', { 'x-drive-filename': '.bashrc' });
    expect(other.status).toBe(200);
    expect(other.json.filename).toBeNull();
  });
});

describe('finding 8: upload timing tells nothing about other drives', () => {
  it('the write path does the same S3 work whether or not another drive holds the bytes; dedup is per drive', async () => {
    const a = await driveClient(api);
    const b = await driveClient(api);
    const puts: string[] = [];
    const s3 = api.ctx.s3;
    const send = s3.send.bind(s3);
    s3.send = ((cmd: { constructor: { name: string } }, ...rest: unknown[]) => {
      if (cmd.constructor.name === 'PutObjectCommand') puts.push(cmd.constructor.name);
      return (send as (...args: unknown[]) => unknown)(cmd, ...rest);
    }) as typeof s3.send;
    try {
      const bytes = randomBytes(200 * 1024);
      const putsFor = async (d: DriveClient, path: string) => {
        const before = puts.length;
        const r = await d.put(path, bytes);
        expect(r.status, r.bytes.toString()).toBe(200);
        return puts.length - before;
      };
      expect(await putsFor(a, 'first.bin')).toBe(1);
      // Drive b's upload of the same bytes does the same S3 work as a first upload would.
      expect(await putsFor(b, 'same.bin')).toBe(1);
      // The same drive again: its own bytes are reused (what it learns is only about itself).
      expect(await putsFor(a, 'again.bin')).toBe(0);
      expect((await a.get('/v0/artifacts/again.bin/meta')).status).toBe(200);
      expect((await b.get(`/v0/artifacts/same.bin/meta`)).json.size_bytes).toBe(bytes.length);
    } finally {
      s3.send = send;
    }
  });
});
