import { z } from 'zod';
import { AppError } from '../lib/errors.js';
import { runMemoryCommand } from '../files/memory/memory-tool.js';
import { memoryCommandSchema } from '../shapes/memory-schemas.js';
import { defineTool, writes, type ToolEnv, type ToolSet } from './tool-kit.js';

/**
 * memory: Anthropic's memory tool (`memory_20250818`) with its input schema and result strings, on the credential's
 * memory prefix, memories/ by default (POST /v0/memory, docs/decisions/memory-tool.md). A failed command is an isError
 * result whose text is the reference's error string, as the SDK's tool runner reports it.
 */
const text = z.string().max(16 * 1024 * 1024);
const path = z.string().max(1024);

export function registerMemoryTools(server: ToolSet, env: ToolEnv): void {
  defineTool(
    server,
    env,
    'memory',
    {
      title: 'Memory (/memories)',
      description:
        'Anthropic memory tool: view, create, str_replace, insert, delete, rename files under /memories (stored in ' +
        "the drive's memories/ folder or the one the API key names, versioned and undoable).",
      input: {
        command: z.enum(['view', 'create', 'str_replace', 'insert', 'delete', 'rename']),
        path: path.optional(),
        view_range: z.array(z.number().int()).max(8).optional(),
        file_text: text.optional(),
        old_str: text.optional(),
        new_str: text.optional(),
        insert_line: z.number().int().optional(),
        insert_text: text.optional(),
        old_path: path.optional(),
        new_path: path.optional(),
      },
      annotations: writes(true, false),
      budget: 'write',
      rawPaths: true,
    },
    async (args, rc) => {
      const command = memoryCommandSchema.safeParse(args);
      if (!command.success)
        throw new AppError('VALIDATION_ERROR', `memory ${args.command}: ${command.error.issues[0]?.message}`);
      const r = await runMemoryCommand(rc, command.data);
      return { structured: { ...r }, text: r.result, isError: r.is_error };
    },
  );
}
