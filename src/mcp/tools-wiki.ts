import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { grepArtifacts } from '../files/grep.js';
import { listWikiPages, searchWiki, type WikiPageInfo } from '../wiki/browse.js';
import { cursorArg, defineTool, fitPage, READ_ONLY, type ToolEnv } from './tool-kit.js';
import { grepAnswer, grepOutput } from './tools-search.js';

/**
 * The drive's wiki (entity and concept pages under _wiki/, built by the language model): wiki_search, wiki_ls,
 * wiki_grep.
 */

export const wikiPageSchema = z.object({
  kind: z.enum(['entity', 'concept']),
  slug: z.string(),
  name: z.string(),
  path: z.string(),
  url: z.string(),
  mention_count: z.number().int().describe('sources that mention it'),
  summary: z.string().describe('what the first source says about it'),
  updated_at: z.string(),
});

const kindArg = z.enum(['entity', 'concept']).optional().describe('only entity pages or only concept pages');
const pageLine = (p: WikiPageInfo) =>
  `${p.path}  ${p.name}  (${p.mention_count} source${p.mention_count === 1 ? '' : 's'})${p.summary ? `: ${p.summary.slice(0, 120)}` : ''}`;

export function registerWikiTools(server: McpServer, env: ToolEnv): void {
  const { config } = env.app;
  const cap = config.mcp.resultMaxChars;

  defineTool(
    server,
    env,
    'wiki_search',
    {
      title: 'Search the wiki',
      description:
        'Finds wiki pages (entities: people, organizations, places, products…; concepts: ideas, methods, topics) by name or by what ' +
        "the drive's documents say about them (English stemming). Each page merges every source's mentions with links back to them: open one " +
        'with read(path). Empty when the wiki is off or not built yet. Use search/find for the documents themselves.',
      input: { q: z.string().min(1).max(200), kind: kindArg, limit: z.number().int().min(1).max(100).default(20) },
      output: { items: z.array(wikiPageSchema) },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) => {
      const items = await searchWiki(rc, { q: args.q, kind: args.kind, limit: args.limit });
      return {
        structured: { items },
        text: items.length ? items.map(pageLine).join('\n') : `no wiki page matches "${args.q}"`,
      };
    },
  );

  defineTool(
    server,
    env,
    'wiki_ls',
    {
      title: 'List wiki pages',
      description:
        "Lists the wiki's pages by kind then slug (entity pages at _wiki/entities/{slug}.md, concept pages at _wiki/concepts/{slug}.md), " +
        'with how many sources mention each. Filter by kind and slug prefix; pages of up to 200 (default 50) with next_cursor.',
      input: {
        kind: kindArg,
        prefix: z.string().max(80).optional().describe('slug prefix, e.g. "ada"'),
        cursor: cursorArg,
        limit: z.number().int().min(1).max(200).default(50),
      },
      output: { items: z.array(wikiPageSchema), next_cursor: z.string().nullable() },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) =>
      fitPage(
        cap,
        args.limit,
        (limit) => listWikiPages(rc, { kind: args.kind, prefix: args.prefix, cursor: args.cursor, limit }),
        (page) => ({
          structured: page,
          text:
            `${page.items.length} wiki page(s):\n${page.items.map(pageLine).join('\n')}` +
            (page.next_cursor ? `\nMore: cursor="${page.next_cursor}".` : ''),
        }),
      ),
  );

  defineTool(
    server,
    env,
    'wiki_grep',
    {
      title: 'Grep the wiki',
      description:
        "Like grep, over the wiki's pages only (_wiki/): a JavaScript regular expression, or a literal with literal=true; path, line " +
        'number and line. prefix is relative to _wiki/ (e.g. "entities/"). Bounded like grep; next_cursor continues.',
      input: {
        pattern: z.string().min(1).max(500),
        literal: z.boolean().default(false),
        ignore_case: z.boolean().default(false),
        prefix: z.string().max(240).default('').describe('under _wiki/, e.g. "concepts/"'),
        max_matches: z.number().int().min(1).max(1000).default(200),
        cursor: cursorArg,
      },
      output: grepOutput,
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) =>
      grepAnswer(
        await grepArtifacts(rc, {
          pattern: args.pattern,
          literal: args.literal,
          ignoreCase: args.ignore_case,
          prefix: `_wiki/${args.prefix}`,
          wiki: true,
          maxFiles: config.mcp.grepMaxFiles,
          maxMatches: args.max_matches,
          maxChars: Math.floor(cap / 3),
          timeMs: config.mcp.grepTimeMs,
          cursor: args.cursor,
        }),
      ),
  );
}
