import { applyPatch } from '../files/patch/patch.js';
import { patchBodySchema } from '../shapes/memory-schemas.js';
import { defineTool, writes, type ToolEnv, type ToolSet } from './tool-kit.js';

/** apply_patch: OpenAI's V4A patch format, all or nothing (POST /v0/patch, docs/decisions/apply-patch.md). */
export function registerPatchTools(server: ToolSet, env: ToolEnv): void {
  defineTool(
    server,
    env,
    'apply_patch',
    {
      title: 'Apply a V4A patch',
      description:
        'Applies a V4A patch (*** Begin Patch, Add/Update/Delete File, Move to, @@ context) to drive paths, all ' +
        'or nothing; a failed hunk returns PATCH_NOT_APPLIED with the nearest match.',
      input: patchBodySchema.shape,
      annotations: writes(true, false),
      budget: 'write',
    },
    async (args, rc) => {
      const r = await applyPatch(rc, args);
      const lines = r.files.map(
        (f) => `${f.action} ${f.path}${f.moved_to ? ` → ${f.moved_to}` : ''} v${f.version ?? '-'}`,
      );
      return { structured: r, text: `Applied the patch:\n${lines.join('\n')}` };
    },
  );
}
