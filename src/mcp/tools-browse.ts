import { leaseOut } from '../shapes/leases.js';
import { z } from 'zod';
import { FILE_TYPES } from '../files/artifact-rules.js';
import { listEvents } from '../files/events.js';
import { versionsByRef } from '../files/refs.js';
import { lookupWithExtraction } from '../search/extraction-lookup.js';
import { artifactOut, type ArtifactOut } from '../shapes/artifacts.js';
import { driveOverviewOut } from '../shapes/drives.js';
import { driveUsageOut } from '../shapes/usage.js';
import { eventOut } from '../shapes/events.js';
import { folderOut } from '../shapes/folders.js';
import { versionOut } from '../shapes/versions.js';
import { driveSummary } from '../wiki/drive-summary.js';
import { listAt } from '../history/as-of.js';
import { asOfArg, cursorArg, defineTool, fitPage, READ_ONLY, refArg, type ToolEnv, type ToolSet } from './tool-kit.js';

/** Browsing tools: overview, list, lookup, versions, activity. */

export const labelsArg = z.array(z.string().max(64)).max(16).optional().describe('all must match');
const pageLimit = (max: number, dflt: number) => z.number().int().min(1).max(max).default(dflt);

/** What an event is about, for the text renderings: its path when recorded, else its id. */
export const eventSubject = (e: { metadata: Record<string, unknown>; art_id: string | null; fld_id: string | null }) =>
  typeof e.metadata.path === 'string' ? e.metadata.path : (e.art_id ?? e.fld_id ?? '');

/** One file per line; the kept original name beside the path (`… (uploaded as "Meeting notes (draft).md")`). */
export const artifactLine = (a: ArtifactOut) =>
  `${a.path}  v${a.version_number}  ${a.size_bytes} B  ${a.file_type}  ${a.art_id}` +
  (a.filename ? `  (uploaded as ${JSON.stringify(a.filename)})` : '');

/** overview's top_entities/top_concepts items (REFERENCE §1: name, slug, summary, mention_count, url). */
const TOP_PAGES = 10;

const trashedLine = (a: ArtifactOut) => `${a.path}  deleted ${a.deleted_at}  purge ${a.purge_at}  ${a.art_id}`;
const moreLine = (cursor: string | null) => (cursor ? `\nMore: next_cursor="${cursor}".` : '');

export function registerBrowseTools(server: ToolSet, env: ToolEnv): void {
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
        "Start here: the drive, storage, budgets, counts per top folder, latest events, the wiki's top entities.",
      input: {},
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
        stats: driveUsageOut(stats),
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
        'Artifacts by path, filtered by prefix, labels (all match), file_type; trash=true lists deleted ones.',
      input: {
        prefix: z.string().max(256).default('').describe('e.g. "reports/2026/"'),
        label: labelsArg,
        file_type: z.enum(FILE_TYPES).optional(),
        trash: z.boolean().default(false).describe('deleted ones'),
        as_of: asOfArg,
        cursor: cursorArg,
        limit: pageLimit(100, 50),
      },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) => {
      const under = args.prefix ? ` under ${args.prefix}` : '';
      return fitPage(
        cap,
        args.limit,
        async (limit) => {
          const page = await listAt(rc, {
            trash: args.trash,
            asOf: args.as_of,
            prefix: args.prefix,
            labels: args.label ?? [],
            fileType: args.file_type,
            cursor: args.cursor,
            limit,
          });
          return { items: page.items.map(out), next_cursor: page.next_cursor };
        },
        (page) => ({
          structured: args.trash ? { ...page, hint: 'bring one back with restore(ref=art_id)' } : page,
          text: args.trash
            ? `${page.items.length} deleted artifact(s)${under}; restore(ref=art_id) brings one back:\n` +
              page.items.map(trashedLine).join('\n') +
              moreLine(page.next_cursor)
            : `${page.items.length} artifact(s)${under}:\n${page.items.map(artifactLine).join('\n')}` +
              moreLine(page.next_cursor),
        }),
      );
    },
  );

  defineTool(
    server,
    env,
    'lookup',
    {
      title: 'Look up an artifact or folder',
      description: "An artifact's or folder's record (implied ones too): size, type, version, labels, metadata, url.",
      input: {
        ref: refArg.describe('art_/fld_ id or path'),
      },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) => {
      const { found, extraction } = await lookupWithExtraction(rc, args.ref);
      const leases = found.leases.map((l) => leaseOut(l, false));
      const held = leases.map(
        (l) => `\nleased (${l.mode}) by ${l.holder.actor ?? l.holder.credential} until ${l.expires_at}`,
      );
      if (found.kind === 'implied')
        return {
          structured: { kind: 'folder', folder: { path: found.path, fld_id: null, implied: true }, leases },
          text: `folder ${found.path} (implied by the paths under it; share, grant or compile it and it gets a record)${held.join('')}`,
        };
      if (found.kind === 'artifact') {
        const a = out(found.artifact);
        return {
          structured: { kind: 'artifact', artifact: a, extraction, leases },
          text:
            `${artifactLine(a)}\n${a.content_type}; labels: ${a.labels.join(',') || 'none'}; url: ${a.url}` +
            (extraction ? `\nextraction: ${extraction}` : '') +
            held.join(''),
        };
      }
      const f = folderOut(found.folder);
      return {
        structured: { kind: 'folder', folder: f, leases },
        text: `folder ${f.path} (${f.fld_id})${f.description ? `: ${f.description}` : ''}${held.join('')}`,
      };
    },
  );

  defineTool(
    server,
    env,
    'versions',
    {
      title: 'List versions',
      description: 'Versions of an artifact, newest first, with author and summary; open one with read_version.',
      input: { ref: refArg.describe('art_… id or path'), cursor: cursorArg, limit: pageLimit(100, 50) },
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
          const items = page.items.map(versionOut);
          return {
            art_id: a.id,
            path: a.path,
            current_version: a.version_number,
            items,
            next_cursor: page.next_cursor,
          };
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
      description: 'The event log, newest first, filtered by art_id, action ' + '(e.g. artifact.renamed) and time.',
      input: {
        art_id: z.string().max(64).optional(),
        action: z.string().max(64).optional(),
        since: z.iso.datetime({ offset: true }).optional(),
        before: z.iso.datetime({ offset: true }).optional(),
        cursor: cursorArg,
        limit: pageLimit(200, 50),
      },
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
