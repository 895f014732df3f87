import { z } from 'zod';
import { grepArtifacts } from '../files/grep.js';
import { listWikiPages, searchWiki, type WikiPageInfo } from '../wiki/browse.js';
import { cursorArg, defineTool, fitPage, READ_ONLY, type ToolEnv, type ToolSet } from './tool-kit.js';
import { grepAnswer } from './tools-search.js';

/**
 * The drive's wiki (entity and concept pages under _wiki/, built by the language model): wiki_search, wiki_ls,
 * wiki_grep.
 */

const kindArg = z.enum(['entity', 'concept']).optional();
const pageLine = (p: WikiPageInfo) =>
  `${p.path}  ${p.name}  (${p.mention_count} source${p.mention_count === 1 ? '' : 's'})${p.summary ? `: ${p.summary.slice(0, 120)}` : ''}`;

export function registerWikiTools(server: ToolSet, env: ToolEnv): void {
  const { config } = env.app;
  const cap = config.mcp.resultMaxChars;

  defineTool(
    server,
    env,
    'wiki_search',
    {
      title: 'Search the wiki',
      description:
        "Finds the wiki's entity and concept pages by name or by what the documents say about them; open one with " +
        'read(path).',
      input: { q: z.string().min(1).max(200), kind: kindArg, limit: z.number().int().min(1).max(100).default(20) },
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
      description: "The wiki's pages (_wiki/entities/, _wiki/concepts/) by kind and slug, with source counts.",
      input: {
        kind: kindArg,
        prefix: z.string().max(80).optional().describe('slug prefix'),
        cursor: cursorArg,
        limit: z.number().int().min(1).max(200).default(50),
      },
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
      description: "grep over the wiki's pages only; prefix is relative to _wiki/ (e.g. entities/).",
      input: {
        pattern: z.string().min(1).max(500),
        literal: z.boolean().default(false),
        ignore_case: z.boolean().default(false),
        prefix: z.string().max(240).default(''),
        max_matches: z.number().int().min(1).max(1000).default(200),
        cursor: cursorArg,
      },
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
