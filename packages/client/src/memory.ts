import { ok } from './client.js';
import type { Drive } from './drive.js';

/**
 * The drive as the backend of the Anthropic TypeScript SDK's memory tool (issue 57): `tools: [driveMemoryTool(drive)]`
 * in `client.beta.messages.toolRunner(…)`, or `betaMemoryTool(driveMemoryHandlers(drive))`. Every command is
 * `POST /v0/memory`, whose strings are the reference backend's; an `is_error` result is thrown, which the SDK's
 * runner turns into an error tool result with that text. Structurally typed: the SDK is not a dependency.
 */
export type MemoryCommand =
  | { command: 'view'; path: string; view_range?: number[] }
  | { command: 'create'; path: string; file_text: string }
  | { command: 'str_replace'; path: string; old_str: string; new_str: string }
  | { command: 'insert'; path: string; insert_line: number; insert_text: string }
  | { command: 'delete'; path: string }
  | { command: 'rename'; old_path: string; new_path: string };

type Handlers = {
  [K in MemoryCommand['command']]: (command: Extract<MemoryCommand, { command: K }>) => Promise<string>;
};

/** Thrown for a failed memory command: its message is the tool result string. */
export class MemoryToolError extends Error {}

async function run(drive: Drive, command: MemoryCommand): Promise<string> {
  const r = await ok(drive.client.api.POST('/v0/memory', { body: command }));
  if (r.is_error) throw new MemoryToolError(r.result);
  return r.result;
}

/** The handlers of the SDK's `MemoryToolHandlers` (for `betaMemoryTool`). */
export function driveMemoryHandlers(drive: Drive): Handlers {
  const one = (command: MemoryCommand) => run(drive, command);
  return { view: one, create: one, str_replace: one, insert: one, delete: one, rename: one };
}

/** A runnable `memory_20250818` tool, the shape the SDK's toolRunner accepts (`type`, `name`, `parse`, `run`). */
export function driveMemoryTool(drive: Drive) {
  return {
    type: 'memory_20250818' as const,
    name: 'memory' as const,
    parse: (content: unknown) => content as MemoryCommand,
    run: (args: MemoryCommand) => run(drive, args),
  };
}
