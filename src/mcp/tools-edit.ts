import { z } from 'zod';
import { editArtifact } from '../files/edit.js';
import { editInputOf, editOut, textEditSchema } from '../shapes/edit-schemas.js';
import { actorArg, defineTool, isArtId, refArg, resultChars, writes, type ToolEnv, type ToolSet } from './tool-kit.js';

/** edit: exact old_text → new_text replacements on a text artifact, with a dry-run diff and If-Match semantics. */
export function registerEditTools(server: ToolSet, env: ToolEnv): void {
  const { config } = env.app;
  const cap = config.mcp.resultMaxChars;

  defineTool(
    server,
    env,
    'edit',
    {
      title: 'Edit a text file',
      description:
        'Replaces old_text (once, or all with replace_all) by new_text in a text file, edits in order, ' +
        'as ONE new version; dry_run: diff only. Concurrent change: 412, or with merge a 3-way merge.',
      input: {
        ref: refArg,
        edits: z.array(textEditSchema).max(100).default([]),
        dry_run: z.boolean().default(false),
        if_match: z.number().int().min(1).optional().describe('expected version, else 412'),
        merge: z.boolean().optional(),
        change_summary: z.string().max(1000).optional(),
        insert_line: z.number().int().min(0).optional().describe('insert after line (0: top)'),
        insert_text: z.string().optional(),
        actor: actorArg,
      },
      annotations: writes(false, false),
      budget: 'write',
    },
    async (args, rc) => {
      const r = await editArtifact(rc, {
        target: isArtId(args.ref) ? { artId: args.ref } : { path: args.ref },
        ifMatch: args.if_match,
        ...editInputOf(args),
      });
      const out = editOut(config, r);
      const artifact = out.artifact;
      const summary = r.applied
        ? `Applied ${r.replacements} replacement(s) to ${r.path}: v${r.baseVersion} → v${artifact!.version_number}.`
        : args.dry_run
          ? `Dry run: ${r.replacements} replacement(s) in ${r.path} (v${r.baseVersion}); nothing written.`
          : `No change: the text is identical.`;
      // The diff appears in both the text and the structured answer: cut it once to what the cap leaves
      // (JSON escaping can only grow it, so the share is halved for the two copies and escapes).
      let diff = r.diff;
      let truncated = false;
      const answer = () => ({
        structured: { ...out, diff, diff_truncated: truncated },
        text: `${summary}\n${diff}`,
      });
      if (resultChars(answer()) > cap) {
        diff = '';
        const room = Math.max(0, Math.floor((cap - resultChars(answer())) / 4));
        diff = r.diff.slice(0, room);
        truncated = true;
      }
      return answer();
    },
  );
}
