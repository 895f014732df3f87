import { z } from 'zod';
import { changesSince } from '../feed/changes.js';
import { eventOut } from '../shapes/events.js';
import { defineTool, READ_ONLY, type ToolEnv, type ToolSet } from './tool-kit.js';
import { eventSubject } from './tools-browse.js';

/** The change feed for agents: what others changed since a seq (docs/decisions/feed.md, MCP). */
export function registerChangesTools(tools: ToolSet, env: ToolEnv): void {
  defineTool(
    tools,
    env,
    'changes',
    {
      title: 'Changes since',
      description: 'What changed on the drive, oldest first; next_since for next time.',
      input: {
        since: z.number().int().min(0).optional().describe('after this seq'),
        prefix: z.string().min(1).max(256).optional().describe('Only paths starting with this.'),
        limit: z.number().int().min(1).max(200).default(50).describe('max events'),
      },
      annotations: READ_ONLY,
      budget: 'read',
    },
    async (args, rc) => {
      const page = await changesSince(rc, { since: args.since, prefix: args.prefix, limit: args.limit });
      const structured = { items: page.items.map(eventOut), next_since: page.nextSince, more: page.more };
      const lines = structured.items.map((e) =>
        `${e.seq}  ${e.action}  ${eventSubject(e)}  ${e.actor_name ?? ''}`.trimEnd(),
      );
      return {
        structured,
        text: `${lines.join('\n') || 'no changes'}\nnext_since=${page.nextSince}${page.more ? ' (more waiting)' : ''}`,
      };
    },
  );
}
