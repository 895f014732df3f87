import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { startChatServer, type ChatTestServer } from '../helpers/chat-server.js';
import { driveClient, sqlOn, type DriveClient } from '../artifacts/client.js';
import { createWikiHandler } from '../../src/wiki/handler.js';
import type { OutboxHandler, OutboxOp } from '../../src/outbox/outbox.js';
import { createWikiModel, MAX_INPUT_CHARS } from '../../src/wiki/provider.js';

/**
 * The wiki against a real chat-completions server on 127.0.0.1 and the real stack: the outbox
 * handler is called directly with the requests the outbox would hand it (the drainer is the
 * outbox's business), and everything is checked through the HTTP API and on what the server received.
 */
let api: TestApi;
let llm: ChatTestServer;
let handler: OutboxHandler;
let d: DriveClient;

beforeAll(async () => {
  llm = await startChatServer();
  // The API has no model configured, so its writes queue no `wiki` requests (the worker of e2e.test.ts
  // would drain them): the handler gets its model directly and is called with the requests instead.
  api = await startTestApi({});
  handler = createWikiHandler(api.ctx, {
    model: createWikiModel({
      url: llm.url,
      apiKey: llm.apiKey,
      model: 'test-model',
      timeoutMs: 30_000,
      invalidReplyRetries: 2,
    }),
  });
  d = await driveClient(api);
});
afterAll(async () => {
  await api?.close();
  await llm?.close();
});

const progress = { heartbeat: () => {} };
/** Runs the wiki's pass over these artifacts, as one outbox batch; fails on any failed request. */
async function index(drive: DriveClient, artIds: string[], op: OutboxOp = 'content') {
  const failures = await handler.handle(
    artIds.map((artId) => ({ driveId: drive.driveId, artId, ops: [op], paths: [] })),
    progress,
  );
  expect([...failures].map(([id, e]) => `${id}: ${e.message}`)).toEqual([]);
}
async function put(drive: DriveClient, path: string, text: string, contentType = 'text/markdown') {
  const r = await drive.put(path, text, { 'content-type': contentType });
  expect(r.status, JSON.stringify(r.json)).toBeLessThan(300);
  return r.json as { art_id: string; hash: string };
}
/** A page's text, or null when no live artifact is at the path. */
async function page(drive: DriveClient, path: string) {
  const meta = await drive.get(`/v0/artifacts/${path}/meta`);
  if (meta.status === 404) return null;
  const r = await drive.get(`/v0/artifacts/${meta.json.art_id}/download`);
  expect(r.status).toBe(200);
  return r.bytes.toString('utf8');
}
const sent = () => llm.requests.length;

describe('wiki pages', () => {
  it('creates one page per entity and concept, merges two sources, links each mention to its source', async () => {
    const a = await put(
      d,
      'notes/ada.md',
      [
        'Notes on the first programmer',
        '# Life',
        'ENTITY Ada Lovelace | person | wrote the first published algorithm',
        'CONCEPT Analytical engine | a general-purpose mechanical computer',
      ].join('\n'),
    );
    const b = await put(
      d,
      'notes/babbage.md',
      [
        'Babbage biography',
        "ENTITY Ada Lovelace | person | translated Menabrea's paper on the engine",
        'ENTITY Charles Babbage | person | designed the analytical engine',
      ].join('\n'),
    );
    const before = sent();
    await index(d, [a.art_id, b.art_id]);
    expect(sent() - before).toBe(2);

    const ada = await page(d, '_wiki/entities/ada-lovelace.md');
    expect(ada).toContain('# Ada Lovelace');
    expect(ada).toContain(
      `[\`notes/ada.md\`](${api.ctx.config.http.webUrl}/a/${a.art_id}): wrote the first published algorithm`,
    );
    expect(ada).toContain(
      `[\`notes/babbage.md\`](${api.ctx.config.http.webUrl}/a/${b.art_id}): translated Menabrea's paper`,
    );
    expect(await page(d, '_wiki/concepts/analytical-engine.md')).toContain('a general-purpose mechanical computer');
    expect(await page(d, '_wiki/entities/charles-babbage.md')).toContain('designed the analytical engine');

    // llm_index is on the artifact record; pages are versions with events by the wiki.
    const meta = (await d.get(`/v0/artifacts/${a.art_id}`)).json;
    expect(meta.llm_index).toMatchObject({
      summary: 'Notes on the first programmer',
      outline: ['Life'],
      entities: [{ name: 'Ada Lovelace', type: 'person' }],
    });
    const pageMeta = (await d.get('/v0/artifacts/_wiki/entities/ada-lovelace.md/meta')).json;
    expect(pageMeta.content_type).toContain('text/markdown');
    const events = await d.events(`?art_id=${pageMeta.art_id}`);
    expect(events.map((e) => e.action)).toContain('artifact.created');
    expect(events.every((e) => e.actor_name === 'wiki')).toBe(true);
  });

  it("an overwrite replaces that source's contributions; a page with no source left goes to the trash", async () => {
    const a = await put(
      d,
      'notes/ada.md',
      ['Notes, revised', 'ENTITY Ada Lovelace | person | was a mathematician'].join('\n'),
    );
    await index(d, [a.art_id]);
    const ada = (await page(d, '_wiki/entities/ada-lovelace.md'))!;
    expect(ada).toContain('was a mathematician');
    expect(ada).not.toContain('wrote the first published algorithm');
    expect(ada).toContain('translated Menabrea');
    // The concept came only from the old version of notes/ada.md.
    expect(await page(d, '_wiki/concepts/analytical-engine.md')).toBeNull();
    const trash = (await d.get(`/v0/drives/${d.driveId}/trash`)).json;
    expect(JSON.stringify(trash)).toContain('_wiki/concepts/analytical-engine.md');
  });

  it('unchanged content is not sent again (same artifact, a copy, a rename)', async () => {
    const meta = (await d.get('/v0/artifacts/notes/ada.md/meta')).json;
    const before = sent();
    await index(d, [meta.art_id]);
    const copy = await d.call('POST', `/v0/artifacts/${meta.art_id}/copy`, { json: { path: 'archive/ada-copy.md' } });
    expect(copy.status).toBeLessThan(300);
    await index(d, [copy.json.art_id]);
    expect(sent()).toBe(before);
    expect((await page(d, '_wiki/entities/ada-lovelace.md'))!).toContain('archive/ada-copy.md');

    const moved = await d.call('PATCH', `/v0/artifacts/${copy.json.art_id}`, {
      json: { path: 'archive/ada-moved.md' },
    });
    expect(moved.status).toBe(200);
    await index(d, [copy.json.art_id], 'record');
    expect(sent()).toBe(before);
    const ada = (await page(d, '_wiki/entities/ada-lovelace.md'))!;
    expect(ada).toContain('archive/ada-moved.md');
    expect(ada).not.toContain('archive/ada-copy.md');
  });

  it("a delete removes the source's mentions", async () => {
    const b = (await d.get('/v0/artifacts/notes/babbage.md/meta')).json;
    expect((await d.call('DELETE', `/v0/artifacts/${b.art_id}`)).status).toBe(200);
    await index(d, [b.art_id], 'remove');
    expect(await page(d, '_wiki/entities/charles-babbage.md')).toBeNull();
    const ada = (await page(d, '_wiki/entities/ada-lovelace.md'))!;
    expect(ada).not.toContain('notes/babbage.md');
    expect(ada).toContain('notes/ada.md');
  });

  it('callers cannot write, delete or restore _wiki/ (WIKI_RESERVED)', async () => {
    expect((await d.put('_wiki/entities/ada-lovelace.md', 'mine')).code).toBe('WIKI_RESERVED');
    const pageMeta = (await d.get('/v0/artifacts/_wiki/entities/ada-lovelace.md/meta')).json;
    expect((await d.call('DELETE', `/v0/artifacts/${pageMeta.art_id}`)).code).toBe('WIKI_RESERVED');
    const trashed = await sqlOn(
      api,
      `select id from artifacts where drive_id = ? and path = '_wiki/entities/charles-babbage.md' and deleted_at is not null`,
      [d.driveId],
    );
    expect((await d.call('POST', `/v0/artifacts/${trashed[0].id}/restore`)).code).toBe('WIKI_RESERVED');
  });
});

describe('what is sent', () => {
  it('at most the first 120,000 characters of the text, never a _wiki/ page or a non-text artifact', async () => {
    const e = await driveClient(api);
    const unit = 'Long report line about Grace Hopper and compilers. ';
    const text = `Long report\nENTITY Grace Hopper | person | built the first compiler\n${unit.repeat(Math.ceil(300_000 / unit.length))}`;
    const big = await put(e, 'reports/long.txt', text, 'text/plain');
    const png = await put(e, 'images/pic.png', '\x89PNG\r\n\x1a\nnot really', 'image/png');
    const before = sent();
    await index(e, [big.art_id, png.art_id]);
    const pageMeta = (await e.get('/v0/artifacts/_wiki/entities/grace-hopper.md/meta')).json;
    await index(e, [pageMeta.art_id]);
    const mine = llm.requests.slice(before);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.documentChars).toBe(MAX_INPUT_CHARS);
    expect(mine[0]!.document).toBe(text.slice(0, MAX_INPUT_CHARS));
    for (const r of llm.requests) expect(r.documentChars).toBeLessThanOrEqual(MAX_INPUT_CHARS);
    expect(mine[0]!.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'llm_index', strict: true },
    });
    expect(mine[0]!.body.response_format.json_schema.schema.required).toEqual([
      'summary',
      'outline',
      'entities',
      'concepts',
    ]);
  });

  it('with the switch off nothing is sent; the setting reads back from GET /v0/drives/me', async () => {
    const e = await driveClient(api);
    expect((await e.get('/v0/drives/me')).json.settings).toEqual({ wiki_indexing: true });
    const off = await e.call('PATCH', '/v0/drives/me', { json: { settings: { wiki_indexing: false } } });
    expect(off.status).toBe(200);
    expect(off.json.settings).toEqual({ wiki_indexing: false });
    expect((await e.get('/v0/drives/me')).json.settings).toEqual({ wiki_indexing: false });
    expect((await e.call('PATCH', '/v0/drives/me', { json: { settings: { wiki_indexing: 'no' } } })).status).toBe(422);
    const a = await put(e, 'notes/secret.md', 'Secret\nENTITY Secret Person | person | must not leave');
    const before = sent();
    await index(e, [a.art_id]);
    expect(sent()).toBe(before);
    expect(await page(e, '_wiki/entities/secret-person.md')).toBeNull();
    expect((await e.get(`/v0/artifacts/${a.art_id}`)).json.llm_index).toBeNull();
  });

  it('a malformed reply is retried a bounded number of times, then leaves every page unchanged', async () => {
    const e = await driveClient(api);
    const a = await put(e, 'notes/one.md', 'One\nENTITY Alan Turing | person | proposed the imitation game');
    await index(e, [a.art_id]);
    const pageBefore = (await e.get('/v0/artifacts/_wiki/entities/alan-turing.md/meta')).json;
    const b = await put(
      e,
      'notes/two.md',
      'Two\nENTITY Alan Turing | person | broke Enigma\nENTITY Joan Clarke | person | cryptanalyst',
    );
    for (const mode of ['not-json', 'wrong-shape'] as const) {
      llm.mode = mode;
      const before = sent();
      try {
        await index(e, [b.art_id]);
      } finally {
        llm.mode = 'ok';
      }
      expect(sent() - before).toBe(3);
      const pageAfter = (await e.get('/v0/artifacts/_wiki/entities/alan-turing.md/meta')).json;
      expect(pageAfter.version_number).toBe(pageBefore.version_number);
      expect(pageAfter.hash).toBe(pageBefore.hash);
      expect(await page(e, '_wiki/entities/joan-clarke.md')).toBeNull();
      expect((await e.get(`/v0/artifacts/${b.art_id}`)).json.llm_index).toBeNull();
      const failures = await sqlOn(api, `select attempts, error from wiki_failures where art_id = ?`, [b.art_id]);
      expect(failures[0].attempts).toBe(3);
      await sqlOn(api, `delete from wiki_failures where art_id = ?`, [b.art_id]);
    }
  });

  it('a provider outage fails the request (the outbox retries it) and writes nothing', async () => {
    const e = await driveClient(api);
    const a = await put(e, 'notes/x.md', 'X\nENTITY Outage Person | person | waits');
    llm.mode = 'unavailable';
    let failures: Map<string, Error>;
    try {
      failures = await handler.handle([{ driveId: e.driveId, artId: a.art_id, ops: ['content'], paths: [] }], progress);
    } finally {
      llm.mode = 'ok';
    }
    expect(failures.get(a.art_id)?.message).toContain('503');
    expect(await page(e, '_wiki/entities/outage-person.md')).toBeNull();
    await index(e, [a.art_id]);
    expect(await page(e, '_wiki/entities/outage-person.md')).toContain('waits');
  });

  it('wiki passes count as indexing ops in usage', async () => {
    const e = await driveClient(api);
    const ops = async () => (await e.get('/v0/drives/me/usage')).json.ops_this_month.indexing_ops.used as number;
    const before = await ops();
    const a = await put(e, 'notes/u.md', 'U\nCONCEPT Usage metering | counts things');
    await index(e, [a.art_id]);
    await index(e, [a.art_id]);
    expect(await ops()).toBe(before + 1);
  });
});

describe('concurrency', () => {
  it('two sources mentioning one entity, handled at once: both mentions land on the page', async () => {
    const e = await driveClient(api);
    llm.delayMs = 150;
    try {
      for (let round = 0; round < 3; round++) {
        const name = `Shared Entity ${round}`;
        const x = await put(e, `c/x${round}.md`, `X\nENTITY ${name} | person | seen by x`);
        const y = await put(e, `c/y${round}.md`, `Y\nENTITY ${name} | person | seen by y`);
        // Two drainers (two shards) at once, each with one source.
        await Promise.all([index(e, [x.art_id]), index(e, [y.art_id])]);
        const text = (await page(e, `_wiki/entities/shared-entity-${round}.md`))!;
        expect(text).toContain('seen by x');
        expect(text).toContain('seen by y');
      }
    } finally {
      llm.delayMs = 0;
    }
  });
});

describe('find and search', () => {
  it('/v0/find never returns _wiki/ paths, also with prefix=_wiki/; /v0/search finds pages', async () => {
    for (const q of [
      '/v0/find?q=Lovelace&mode=lexical',
      '/v0/find?q=Lovelace&mode=lexical&prefix=_wiki/',
      '/v0/find?q=Lovelace&prefix=_wiki/',
    ]) {
      const r = await d.get(q);
      expect(r.status).toBe(200);
      expect((r.json.items as any[]).filter((h) => h.path.startsWith('_wiki/'))).toEqual([]);
    }
    const end = Date.now() + 45_000;
    let hits: any[] = [];
    while (Date.now() < end) {
      hits = (await d.get('/v0/search?q=Lovelace&prefix=_wiki/')).json.items;
      if (hits.some((h) => h.path === '_wiki/entities/ada-lovelace.md')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(hits.map((h) => h.path)).toContain('_wiki/entities/ada-lovelace.md');
    const found = (await d.get('/v0/find?q=Lovelace&mode=lexical&prefix=_wiki/')).json.items;
    expect(found).toEqual([]);
  });
});

describe('MCP', () => {
  it("wiki_ls, wiki_search, wiki_grep and overview's top entities and concepts", async () => {
    const { mcpClient } = await import('../mcp/helpers.js');
    const e = await driveClient(api);
    const one = await put(
      e,
      'docs/one.md',
      'One\nENTITY Temporal | product | runs the workflows\nCONCEPT Transactional outbox | rows written with the change',
    );
    const two = await put(e, 'docs/two.md', 'Two\nENTITY Temporal | product | schedules the cleanup');
    await index(e, [one.art_id, two.art_id]);
    const mcp = await mcpClient(api, e.apiKey);
    try {
      const ls = await mcp.ok<{ items: any[] }>('wiki_ls', {});
      expect(ls.items.map((p) => p.path)).toEqual([
        '_wiki/concepts/transactional-outbox.md',
        '_wiki/entities/temporal.md',
      ]);
      expect(ls.items[1]).toMatchObject({
        kind: 'entity',
        name: 'Temporal',
        mention_count: 2,
        summary: 'runs the workflows',
      });
      expect((await mcp.ok<{ items: any[] }>('wiki_ls', { kind: 'entity' })).items).toHaveLength(1);

      const found = await mcp.ok<{ items: any[] }>('wiki_search', { q: 'cleanup' });
      expect(found.items.map((p) => p.slug)).toEqual(['temporal']);
      expect((await mcp.ok<{ items: any[] }>('wiki_search', { q: 'outbox' })).items[0].kind).toBe('concept');

      const grep = await mcp.ok<{ matches: any[] }>('wiki_grep', { pattern: 'schedules the', literal: true });
      expect(grep.matches.map((m) => m.path)).toEqual(['_wiki/entities/temporal.md']);
      // Plain grep never reads the wiki.
      expect(
        (await mcp.ok<{ matches: any[] }>('grep', { pattern: 'schedules the', literal: true })).matches.map(
          (m) => m.path,
        ),
      ).toEqual(['docs/two.md']);

      const overview = await mcp.ok<{ top_entities: any[]; top_concepts: any[] }>('overview', {});
      expect(overview.top_entities[0]).toMatchObject({ name: 'Temporal', slug: 'temporal', mention_count: 2 });
      expect(overview.top_entities[0].url).toContain('/_wiki/entities/temporal.md');
      expect(overview.top_concepts.map((c) => c.slug)).toEqual(['transactional-outbox']);
      expect((await mcp.fail('upload', { path: '_wiki/entities/temporal.md', content: 'x' })).code).toBe(
        'WIKI_RESERVED',
      );
    } finally {
      await mcp.close();
    }
  });
});

describe('no provider', () => {
  it('without LLM_URL nothing is sent anywhere and no wiki can be built', async () => {
    const plain = await startTestApi({});
    try {
      expect(plain.ctx.config.llm).toBeUndefined();
      expect(() => createWikiHandler(plain.ctx)).toThrow(/LLM_URL/);
      const e = await driveClient(plain);
      const before = sent();
      const a = await put(e, 'notes/plain.md', 'Plain\nENTITY Nobody | person | stays home');
      // The write is searchable (the worker indexed it), and still nothing reached the model.
      const end = Date.now() + 45_000;
      while (Date.now() < end && !(await e.get('/v0/search?q=stays')).json.items.length)
        await new Promise((r) => setTimeout(r, 200));
      expect(sent()).toBe(before);
      expect((await e.get(`/v0/artifacts/${a.art_id}`)).json.llm_index).toBeNull();
      // No model, no `wiki` topic: the write queued nothing for it.
      expect(
        (
          await sqlOn(plain, `select count(*)::int as n from outbox where topic = 'wiki' and drive_id = ?`, [e.driveId])
        )[0].n,
      ).toBe(0);
    } finally {
      await plain.close();
    }
  });
});
