import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnManaged, type ManagedProcess } from '../../scripts/stack/process.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { startChatServer, type ChatTestServer } from '../helpers/chat-server.js';
import { driveClient, sqlOn } from '../artifacts/client.js';

/**
 * The wiki end to end: writes through the HTTP API queue `wiki` outbox requests in their own
 * transaction, and a real worker process (its own task queue, with a language model configured)
 * drains them: pages appear, follow an overwrite and a delete, and the switch's backfill is read.
 * The suite's shared worker has no model, so only this worker serves the wiki's drainers.
 */
let api: TestApi;
let llm: ChatTestServer;
let worker: ManagedProcess;

beforeAll(async () => {
  llm = await startChatServer();
  const env = { LLM_URL: llm.url, LLM_API_KEY: llm.apiKey };
  api = await startTestApi(env);
  const queue = `wiki-e2e-${process.pid}`;
  worker = spawnManaged('wiki-worker', process.execPath, ['--import', 'tsx', path.resolve('src/worker.ts')], {
    logDir: path.resolve(process.env.DATA_DIR ?? '.data/test', 'logs'),
    env: {
      ...process.env,
      ...env,
      TEMPORAL_TASK_QUEUE: queue,
      COMPILE_TASK_QUEUE: `${queue}-compile`,
      OUTBOX_IDLE_POLL_MS: '500',
    },
  });
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await llm?.close();
});

async function until<T>(what: string, ask: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + 60_000;
  let last = await ask();
  while (!ok(last)) {
    if (Date.now() > end) throw new Error(`${what}: not reached in 60 s; last ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 250));
    last = await ask();
  }
  return last;
}

it('writes reach the wiki through the outbox and the real worker; the switch stops sending and backfills when turned on', async () => {
  const d = await driveClient(api);
  const text = async (p: string) => {
    const meta = await d.get(`/v0/artifacts/${p}/meta`);
    return meta.status === 200
      ? (await d.get(`/v0/artifacts/${meta.json.art_id}/download`)).bytes.toString('utf8')
      : null;
  };
  const a = (
    await d.put('notes/a.md', 'A\nENTITY Hedy Lamarr | person | co-invented frequency hopping', {
      'content-type': 'text/markdown',
    })
  ).json;
  await d.put('notes/b.md', 'B\nENTITY Hedy Lamarr | person | was an actress', { 'content-type': 'text/markdown' });
  const page = await until(
    'merged page',
    () => text('_wiki/entities/hedy-lamarr.md'),
    (t) => !!t && t.includes('frequency hopping') && t.includes('actress'),
  );
  expect(page).toContain('notes/a.md');
  expect((await d.get(`/v0/artifacts/${a.art_id}`)).json.llm_index.entities[0].name).toBe('Hedy Lamarr');

  expect((await d.call('DELETE', '/v0/artifacts/notes/b.md')).status).toBe(200);
  await until(
    'mention removed',
    () => text('_wiki/entities/hedy-lamarr.md'),
    (t) => !!t && !t.includes('actress'),
  );

  // Off: a new text is not sent. On again: the backfill queues the drive's artifacts and the worker reads the new one.
  expect(
    (await d.call('PATCH', '/v0/drives/me', { json: { settings: { wiki_indexing: false } } })).json.settings
      .wiki_indexing,
  ).toBe(false);
  const before = llm.requests.length;
  const c = (
    await d.put('notes/c.md', 'C\nENTITY Claude Shannon | person | founded information theory', {
      'content-type': 'text/markdown',
    })
  ).json;
  await until(
    'request drained',
    () => sqlOn(api, `select count(*)::int as n from outbox where topic = 'wiki' and art_id = ?`, [c.art_id]),
    (r) => r[0].n === 0,
  );
  expect(llm.requests.length).toBe(before);
  expect(await text('_wiki/entities/claude-shannon.md')).toBeNull();

  expect(
    (await d.call('PATCH', '/v0/drives/me', { json: { settings: { wiki_indexing: true } } })).json.settings
      .wiki_indexing,
  ).toBe(true);
  await until(
    'backfilled page',
    () => text('_wiki/entities/claude-shannon.md'),
    (t) => !!t && t.includes('information theory'),
  );
  // Only the new artifact was sent: notes/a.md's content was unchanged.
  expect(llm.requests.slice(before).map((r) => r.document)).toEqual([expect.stringContaining('Claude Shannon')]);
});
