import { z } from 'zod';
import { grepArtifacts, type GrepResult } from '../files/grep.js';
import { MODALITIES } from '../search/engine.js';
import { findPage, searchPage } from '../search/search-page.js';
import { findHitOut, searchHitOut, semanticOut } from '../shapes/search.js';
import {
  cursorArg,
  defineTool,
  READ_ONLY,
  resultChars,
  type ToolAnswer,
  type ToolEnv,
  type ToolSet,
} from './tool-kit.js';
import { labelsArg } from './tools-browse.js';

/** Finding things: search (lexical, ranked files), find (passages, hybrid), grep (exact lines). */

const filters = {
  prefix: z.string().max(256).optional(),
  label: labelsArg,
  file_type: z.string().min(1).max(32).optional(),
  updated_after: z.iso.datetime({ offset: true }).optional(),
  updated_before: z.iso.datetime({ offset: true }).optional(),
  limit: z.number().int().min(1).max(100).default(20),
};

type Filters = {
  prefix?: string;
  label?: string[];
  file_type?: string;
  updated_after?: string;
  updated_before?: string;
  limit: number;
};
const filtersOf = (a: Filters) => ({
  labels: a.label ?? [],
  fileType: a.file_type,
  prefix: a.prefix,
  updatedAfter: a.updated_after ? new Date(a.updated_after) : undefined,
  updatedBefore: a.updated_before ? new Date(a.updated_before) : undefined,
  limit: a.limit,
});

/** Drops hits from the end until the answer fits the cap (search and find have no cursor: one ranked page). */
function fitHits<H>(cap: number, hits: H[], render: (hits: H[], dropped: number) => ToolAnswer): ToolAnswer {
  let n = hits.length;
  for (;;) {
    const answer = render(hits.slice(0, n), hits.length - n);
    if (resultChars(answer) <= cap || n === 0) return answer;
    n = Math.floor(n / 2);
  }
}

export function registerSearchTools(server: ToolSet, env: ToolEnv): void {
  const { config } = env.app;
  const cap = config.mcp.resultMaxChars;

  defineTool(
    server,
    env,
    'search',
    {
      title: 'Search files',
      description:
        'Ranked search (path, first ~16 KB, metadata, labels), one hit per file. Syntax: words, "phrases", ' +
        '-not, OR. Passages deep in files: find; exact text: grep.',
      input: { q: z.string().min(1).max(200), ...filters },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) => {
      const page = await searchPage(rc, env.search, { q: args.q, filters: filtersOf(args) });
      const hits = page.items.map((h) => searchHitOut(config, h));
      return fitHits(cap, hits, (items, dropped) => ({
        structured: { items, next_cursor: null, truncated: dropped > 0, match: page.match },
        text:
          (page.match === 'any' ? 'No file matched every word; these match some of them.\n' : '') +
          `${items.length} hit(s) for ${JSON.stringify(args.q)}:\n${items.map((h) => `${h.path}  (${h.art_id})  ${h.snippet.replace(/\s+/g, ' ').slice(0, 200)}`).join('\n')}` +
          (dropped ? `\n(${dropped} more hits cut to fit the result size cap; lower limit or narrow the query)` : ''),
      }));
    },
  );

  defineTool(
    server,
    env,
    'find',
    {
      title: 'Find passages',
      description:
        'Passages (hybrid, lexical or semantic) with text, span (char_start/char_end) and anchor (page, slide, ' +
        'sheet, chapter, heading: read its unit). Last line: the semantic leg.',
      input: {
        q: z.string().min(1).max(500),
        mode: z.enum(['hybrid', 'lexical', 'semantic']).default('hybrid'),
        modality: z.array(z.enum(MODALITIES)).max(MODALITIES.length).optional(),
        ...filters,
      },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) => {
      const page = await findPage(rc, env.search, {
        find: { q: args.q, mode: args.mode, modalities: args.modality ?? [], ...filtersOf(args) },
      });
      const hits = page.items.map((h) => findHitOut(config, h));
      const semantic = semanticOut(page.semantic);
      // The semantic leg's state is always the last line, so a lexical-only answer never passes for a full one.
      return fitHits(cap, hits, (items, dropped) => ({
        structured: { items, next_cursor: null, truncated: dropped > 0, semantic },
        text:
          `${items.length} passage(s) for ${JSON.stringify(args.q)}:\n${items.map(hitLine).join('\n')}` +
          (dropped ? `\n(${dropped} more passages cut to fit the result size cap; lower limit)` : '') +
          `\nsemantic: ${semantic.status} — ${semantic.note}`,
      }));
    },
  );

  defineTool(
    server,
    env,
    'grep',
    {
      title: 'Grep text files',
      description:
        'Regex (or literal) search of text files in path order: path, line number, line. Bounded by max_files, ' +
        `max_matches, ${config.mcp.grepTimeMs} ms; stopped_by says why; next_cursor continues.`,
      input: {
        pattern: z.string().min(1).max(500),
        literal: z.boolean().default(false),
        ignore_case: z.boolean().default(false),
        prefix: z.string().max(256).default(''),
        max_files: z.number().int().min(1).max(config.mcp.grepMaxFiles).default(config.mcp.grepMaxFiles),
        max_matches: z.number().int().min(1).max(1000).default(200),
        cursor: cursorArg,
      },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) => {
      const r = await grepArtifacts(rc, {
        pattern: args.pattern,
        literal: args.literal,
        ignoreCase: args.ignore_case,
        prefix: args.prefix,
        maxFiles: args.max_files,
        maxMatches: args.max_matches,
        maxChars: Math.floor(cap / 3),
        timeMs: config.mcp.grepTimeMs,
        cursor: args.cursor,
      });
      return grepAnswer(r);
    },
  );
}

/** grep's and wiki_grep's answer. */
export function grepAnswer(r: GrepResult): ToolAnswer {
  const matches = r.matches.map((m) => ({ art_id: m.artId, path: m.path, line: m.line, text: m.text }));
  return {
    structured: { matches, files_scanned: r.filesScanned, stopped_by: r.stoppedBy, next_cursor: r.nextCursor },
    text:
      `${matches.length} matching line(s) in ${r.filesScanned} file(s) scanned:\n${matches.map((m) => `${m.path}:${m.line}: ${m.text}`).join('\n')}` +
      (r.stoppedBy ? `\nStopped early (${r.stoppedBy}); continue with cursor=next_cursor.` : ''),
  };
}

/** One find hit as a line: where it is (its anchor for documents and PDFs, else its span) and the start of its text. */
function hitLine(h: ReturnType<typeof findHitOut>): string {
  const where = h.anchor
    ? JSON.stringify(h.anchor)
    : `[${h.char_start ?? h.page_start ?? ''}-${h.char_end ?? h.page_end ?? ''}]`;
  return `${h.path}#${h.ord} ${where}  ${h.text.replace(/\s+/g, ' ').slice(0, 300)}`;
}
