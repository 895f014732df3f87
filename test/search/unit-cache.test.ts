import { describe, expect, it } from 'vitest';
import { unitCacheExtractions } from '../../src/lib/documents/unit-cache.js';
import { driveClient, useTestApi } from '../artifacts/client.js';
import type { TestApi } from '../helpers/api.js';
import { mcpClient } from '../mcp/helpers.js';
import { makeDocuments } from './documents-helpers.js';

/**
 * Paging through a document extracts it once (src/lib/documents/unit-cache.ts): REST …/text by slide and MCP `read`
 * by unit share the units of one version's bytes; another artifact with the same bytes (a copy) is extracted anew.
 */
let api: TestApi;
useTestApi({}, (a) => (api = a));
const made = makeDocuments();

describe('document unit cache', () => {
  it.skipIf('unavailable' in made)('extracts a version once across units and doors; a copy is its own', async () => {
    const deck = ('documents' in made ? made.documents : []).find((doc) => doc.path === 'docs/deck.pptx')!;
    const d = await driveClient(api);
    const put = await d.put(deck.path, deck.bytes, { 'content-type': deck.contentType });
    expect(put.status).toBe(200);
    const artId = put.json.art_id as string;
    const text = (query: string) => d.get(`/v0/artifacts/${artId}/text?${query}`);

    const before = unitCacheExtractions();
    const first = await text('slide=1');
    expect(first.status).toBe(200);
    const second = await text('slide=2');
    expect(second.json.text).toContain('pptxnotesword');
    const s = await mcpClient(api, d.apiKey);
    const viaMcp = await s.ok<{ anchor: unknown; content: string }>('read', { ref: deck.path, unit: 2 });
    expect(viaMcp.anchor).toEqual({ slide: 2 });
    await s.close();
    expect(unitCacheExtractions() - before).toBe(1);

    // A new version with the same bytes has the same units; the same bytes under another artifact are its own.
    const again = await d.put(deck.path, Buffer.concat([deck.bytes]), {
      'content-type': deck.contentType,
      'x-drive-change-summary': 'same bytes, new version',
    });
    expect(again.json.version_number).toBe(2);
    expect((await text('slide=2')).json.text).toContain('pptxnotesword');
    expect(unitCacheExtractions() - before).toBe(1);
    const copy = await d.call('POST', `/v0/artifacts/${artId}/copy`, { json: { path: 'docs/deck-copy.pptx' } });
    expect(copy.status).toBe(200);
    expect((await d.get(`/v0/artifacts/${copy.json.art_id}/text?slide=2`)).json.text).toContain('pptxnotesword');
    expect(unitCacheExtractions() - before).toBe(2);
  });
});
