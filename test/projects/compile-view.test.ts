import { describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { driveClient, useTestApi, type DriveClient } from '../artifacts/client.js';
import { makeProject, pdfText } from './helpers.js';

let api: TestApi;
let d: DriveClient;
useTestApi({}, (a, c) => {
  api = a;
  d = c;
});

const SECRET = 'Quoll-secret-4471';

describe("a compile job runs with its requester's view", () => {
  it('a manager of the project who cannot read a hidden subfolder compiles without it: the secret is in no input, diagnostic, log or PDF', async () => {
    const fld = await makeProject(d, 'proj', {
      'main.typ': 'Public part.\n#read("private/s.txt")\n',
      'open.typ': 'Open part.\n',
    });
    expect((await d.call('POST', '/v0/folders/proj/private', { json: {} })).status).toBe(201);
    expect((await d.call('PATCH', '/v0/folders/proj/private', { json: { inherit_grants: false } })).status).toBe(200);
    expect((await d.put('proj/private/s.txt', SECRET)).status).toBe(200);

    const other = await driveClient(api);
    const me = (await other.get('/v0/drives/me')).json;
    const g = await d.call('POST', '/v0/grants', {
      json: { resource: fld, principal: { type: 'user', email: me.email }, role: 'manager' },
    });
    expect(g.status).toBe(201);
    const secretId = (await d.get('/v0/artifacts/proj/private/s.txt/meta')).json.art_id;
    expect((await other.get(`/v0/artifacts/${secretId}`)).status).toBe(404);

    const job = (
      await other.call('POST', `/v0/projects/${fld}/jobs`, {
        json: { options: { entrypoint: 'main.typ', wait: true } },
      })
    ).json;
    expect(job.status).toBe('failed');
    expect(job.inputs.map((f: { path: string }) => f.path)).toEqual(['proj/main.typ', 'proj/open.typ']);
    const log = await (await fetch(`${api.url}/v0/jobs/${job.job_id}/logs`, { headers: other.auth })).text();
    const everything = JSON.stringify(job) + log;
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(secretId);

    // The owner's own job reads it (the hidden folder is hidden from the grantee, not from the drive).
    const mine = (
      await d.call('POST', `/v0/projects/${fld}/jobs`, { json: { options: { entrypoint: 'main.typ', wait: true } } })
    ).json;
    expect(mine.status).toBe('succeeded');
    expect(mine.inputs.map((f: { path: string }) => f.path)).toContain('proj/private/s.txt');
    const pdf = await d.get(`/v0/artifacts/${mine.pdf.art_id}/download`);
    expect(await pdfText(pdf.bytes)).toContain(SECRET);

    // And a grantee's job that does not reference it succeeds with a PDF that holds only what it reads.
    const open = (
      await other.call('POST', `/v0/projects/${fld}/jobs`, {
        json: { options: { entrypoint: 'open.typ', wait: true } },
      })
    ).json;
    expect(open.status).toBe('succeeded');
    expect(open.inputs.map((f: { path: string }) => f.path)).not.toContain('proj/private/s.txt');
  });
});
