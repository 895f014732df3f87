import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { listArtifacts } from '../files/artifact-listing.js';
import { FILE_TYPES } from '../files/artifact-rules.js';
import { listEvents } from '../files/events.js';
import { resolveRef, versionsByRef } from '../files/refs.js';
import { artifactOut, type ArtifactOut } from '../shapes/artifacts.js';
import { driveOverviewOut } from '../shapes/drives.js';
import { eventOut } from '../shapes/events.js';
import { folderOut } from '../shapes/folders.js';
import { versionOut } from '../shapes/versions.js';
import { driveSummary } from '../wiki/drive-summary.js';
import { artifactOutSchema, eventOutSchema, folderOutSchema, versionOutSchema } from '../shapes/artifact-schemas.js';
import { cursorArg, defineTool, fitPage, READ_ONLY, refArg, type ToolEnv } from './tool-kit.js';

/** Browsing tools: overview, list, lookup, versions, activity. */

export const labelsArg = z
  .array(z.string().max(64))
  .max(16)
  .optional()
  .describe('only artifacts carrying ALL these labels');
const pageLimit = (max: number, dflt: number) => z.number().int().min(1).max(max).default(dflt);

/** What an event is about, for the text renderings: its path when recorded, else its id. */
export const eventSubject = (e: { metadata: Record<string, unknown>; art_id: string | null; fld_id: string | null }) =>
  typeof e.metadata.path === 'string' ? e.metadata.path : (e.art_id ?? e.fld_id ?? '');

export const artifactLine = (a: ArtifactOut) =>
  `${a.path}  v${a.version_number}  ${a.size_bytes} B  ${a.file_type}  ${a.art_id}`;

/** overview's top_entities/top_concepts items (REFERENCE §1: name, slug, summary, mention_count, url). */
const TOP_PAGES = 10;
const topPageSchema = z.object({
  name: z.string(),
  slug: z.string(),
  summary: z.string(),
  mention_count: z.number().int(),
  url: z.string(),
  path: z.string(),
});

export function registerBrowseTools(server: McpServer, env: ToolEnv): void {
  const { config } = env.app;
  const cap = config.mcp.resultMaxChars;
  const out = (row: Parameters<typeof artifactOut>[1]) => artifactOut(config, row);

  defineTool(
    server,
    env,
    'overview',
    {
      title: 'Drive overview',
      description:
        'Start here. Summarises the drive: owner and claim state, storage and write budget, artifact counts per top-level folder ' +
        "(by_folder), the 10 most recent events (recent_activity), and the wiki's top entities and concepts when the wiki is built. " +
        'Then use list to browse a folder, search/find/grep to locate content, read to open a file.',
      input: {},
      output: {
        drive: z.record(z.string(), z.unknown()),
        stats: z.record(z.string(), z.unknown()),
        by_folder: z.record(z.string(), z.number().int()),
        recent_activity: z.array(eventOutSchema),
        top_entities: z.array(topPageSchema).describe("the wiki's entities most sources mention (empty with no wiki)"),
        top_concepts: z.array(topPageSchema).describe("the wiki's concepts most sources mention"),
      },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (_args, rc) => {
      const summary = await driveSummary(rc, { recentEvents: 10, topPages: TOP_PAGES });
      const { drive, usage: stats, byFolder: folders, entities, concepts } = summary;
      const events = { items: summary.recentEvents };
      const top = (p: (typeof entities)[number]) => ({
        name: p.name,
        slug: p.slug,
        summary: p.summary,
        mention_count: p.mention_count,
        url: p.url,
        path: p.path,
      });
      const byFolder = Object.fromEntries(folders.map((f) => [f.folder === '' ? '/' : f.folder, f.count]));
      const structured = {
        drive: driveOverviewOut(drive, rc.principal),
        stats,
        by_folder: byFolder,
        recent_activity: events.items.map(eventOut),
        top_entities: entities.map(top),
        top_concepts: concepts.map(top),
      };
      const text = [
        `Drive ${drive.id} (${drive.claimedAt ? 'claimed' : 'unclaimed'}), storage ${stats.storage.used}/${stats.storage.limit} bytes, writes this hour ${stats.writes.used}/${stats.writes.limit}.`,
        `Artifacts by folder: ${folders.map((f) => `${f.folder || '/'}: ${f.count}`).join(', ') || 'none yet'}.`,
        `Recent activity: ${events.items.map((e) => `${e.action} ${eventSubject(e)}`).join('; ') || 'none'}.`,
        `Wiki: top entities ${entities.map((p) => `${p.name} (${p.mention_count})`).join(', ') || 'none'}; top concepts ${concepts.map((p) => `${p.name} (${p.mention_count})`).join(', ') || 'none'}.`,
      ].join('\n');
      return { structured, text };
    },
  );

  defineTool(
    server,
    env,
    'list',
    {
      title: 'List artifacts',
      description:
        'Lists live artifacts sorted by path, filtered by path prefix (e.g. "reports/"), labels (all must match) and file_type. ' +
        'Pages of up to 100 (default 50): pass next_cursor back with the SAME filters for the next page; null means the last page. ' +
        'Use search/find for content, grep for exact text, lookup for one artifact.',
      input: {
        prefix: z.string().max(256).default('').describe('path prefix, e.g. "reports/2026/"'),
        label: labelsArg,
        file_type: z.enum(FILE_TYPES).optional(),
        cursor: cursorArg,
        limit: pageLimit(100, 50),
      },
      output: { items: z.array(artifactOutSchema), next_cursor: z.string().nullable() },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) =>
      fitPage(
        cap,
        args.limit,
        async (limit) => {
          const page = await listArtifacts(rc, {
            prefix: args.prefix,
            labels: args.label ?? [],
            fileType: args.file_type,
            cursor: args.cursor,
            limit,
          });
          return { items: page.items.map(out), next_cursor: page.next_cursor };
        },
        (page) => ({
          structured: page,
          text:
            `${page.items.length} artifact(s)${args.prefix ? ` under ${args.prefix}` : ''}:\n${page.items.map(artifactLine).join('\n')}` +
            (page.next_cursor ? `\nMore: call list again with cursor="${page.next_cursor}".` : ''),
        }),
      ),
  );

  defineTool(
    server,
    env,
    'lookup',
    {
      title: 'Look up an artifact or folder',
      description:
        'The full record of one artifact (by art_ id or path) or folder (by fld_ id or folder path): size, type, version, labels, ' +
        'metadata, source, url. Cheap; use it before read to check size and type, or to turn a path into a stable art_ id.',
      input: {
        ref: refArg.describe('art_… id, fld_… id, or a path like "reports/q1.md" (a folder path may end with "/")'),
      },
      output: {
        kind: z.enum(['artifact', 'folder']),
        artifact: artifactOutSchema.optional(),
        folder: folderOutSchema.optional(),
      },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) => {
      const found = await resolveRef(rc, args.ref);
      if (found.kind === 'artifact') {
        const a = out(found.artifact);
        return {
          structured: { kind: 'artifact', artifact: a },
          text: `${artifactLine(a)}\n${a.content_type}; labels: ${a.labels.join(',') || 'none'}; url: ${a.url}`,
        };
      }
      const f = folderOut(found.folder);
      return {
        structured: { kind: 'folder', folder: f },
        text: `folder ${f.path} (${f.fld_id})${f.description ? `: ${f.description}` : ''}`,
      };
    },
  );

  defineTool(
    server,
    env,
    'versions',
    {
      title: 'List versions',
      description:
        'The versions of one artifact, newest first (version_number, size, hash, who wrote it, change summary). ' +
        'Pages of up to 100 (default 50) with next_cursor. Open an old version with read_version.',
      input: { ref: refArg.describe('art_… id or path'), cursor: cursorArg, limit: pageLimit(100, 50) },
      output: {
        art_id: z.string(),
        path: z.string(),
        items: z.array(versionOutSchema),
        next_cursor: z.string().nullable(),
      },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) => {
      let a!: Awaited<ReturnType<typeof versionsByRef>>['artifact'];
      return fitPage(
        cap,
        args.limit,
        async (limit) => {
          const { artifact, page } = await versionsByRef(rc, args.ref, { cursor: args.cursor, limit });
          a = artifact;
          return { art_id: a.id, path: a.path, items: page.items.map(versionOut), next_cursor: page.next_cursor };
        },
        (page) => ({
          structured: page,
          text:
            `${a.path} (${a.id}), current v${a.version_number}:\n` +
            page.items
              .map((v) =>
                `v${v.version_number}  ${v.size_bytes} B  ${v.created_at ?? ''}  ${v.actor_name ?? ''}  ${v.change_summary ?? ''}`.trimEnd(),
              )
              .join('\n') +
            (page.next_cursor ? `\nMore: cursor="${page.next_cursor}".` : ''),
        }),
      );
    },
  );

  defineTool(
    server,
    env,
    'activity',
    {
      title: 'Activity log',
      description:
        "The drive's event log, newest first: creates, updates, renames, copies, deletes, restores, folder changes, with the actor name. " +
        'Filter by art_id, action (e.g. "artifact.renamed"), since/before (RFC 3339). Pages of up to 200 (default 50) with next_cursor.',
      input: {
        art_id: z.string().max(64).optional(),
        action: z.string().max(64).optional(),
        since: z.iso.datetime({ offset: true }).optional(),
        before: z.iso.datetime({ offset: true }).optional(),
        cursor: cursorArg,
        limit: pageLimit(200, 50),
      },
      output: { items: z.array(eventOutSchema), next_cursor: z.string().nullable() },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) =>
      fitPage(
        cap,
        args.limit,
        async (limit) => {
          const page = await listEvents(rc, {
            artId: args.art_id,
            action: args.action,
            since: args.since ? new Date(args.since) : undefined,
            before: args.before ? new Date(args.before) : undefined,
            cursor: args.cursor,
            limit,
          });
          return { items: page.items.map(eventOut), next_cursor: page.next_cursor };
        },
        (page) => ({
          structured: page,
          text:
            page.items
              .map((e) => `${e.created_at}  ${e.action}  ${eventSubject(e)}  ${e.actor_name ?? ''}`.trimEnd())
              .join('\n') + (page.next_cursor ? `\nMore: cursor="${page.next_cursor}".` : '') || 'no events',
        }),
      ),
  );
}
