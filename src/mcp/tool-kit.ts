import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AppContext } from '../platform/context.js';
import { checkActorName } from '../files/artifact-rules.js';
import { AppError } from '../lib/errors.js';
import { hasPrefix } from '../lib/ids.js';
import type { Authenticated } from '../identity/authenticate.js';
import type { RequestContext } from '../platform/request-context.js';
import type { SearchService } from '../search/service.js';
import { chargeWriteOrRefuse } from '../platform/rate-limits.js';

/**
 * How every MCP tool is declared and run: the zod input and output schemas, true annotations,
 * the same budgets as REST (a mutating tool charges the credential's hourly write budget before
 * it runs, so a failed write still counts; a read is counted for the monthly usage report),
 * errors as tool results (`isError: true`) carrying the REST error code, and the result-size cap.
 */
export interface ToolEnv {
  app: AppContext;
  auth: Authenticated;
  search: SearchService;
  /** X-Drive-Actor of the HTTP request, the default attribution when a tool gets no `actor` argument. */
  actorHeader: string | undefined;
  requestId: string;
}

/** Every tool's answer: structured (validated against outputSchema) plus a short text rendering. */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
  /** Extra content blocks after the text (image content for `read`). */
  extra?: CallToolResult['content'];
}

export type Budget = 'read' | 'write' | 'free';

export interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  budget: Budget;
}

/** The attribution argument of the mutating tools. */
export const actorArg = z
  .string()
  .max(64)
  .optional()
  .describe('who to credit in the event log (like X-Drive-Actor): attribution only, at most 64 chars');

/** The size of a result as it reaches the client: the text plus the structured JSON. */
export const resultChars = (a: Pick<ToolAnswer, 'structured' | 'text'>) =>
  a.text.length + JSON.stringify(a.structured).length;

export function errorResult(err: AppError): CallToolResult {
  const error = { code: err.code, status: err.status, message: err.message, ...err.extra };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }] };
}

function toAppError(env: ToolEnv, tool: string, err: unknown): AppError {
  if (err instanceof AppError) return err;
  const errorId = randomUUID();
  env.app.logger.error({ err, error_id: errorId, tool, drive_id: env.auth.driveId }, 'mcp tool failed');
  return new AppError('INTERNAL', `internal error (id ${errorId})`);
}

export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  server: McpServer,
  env: ToolEnv,
  name: string,
  spec: ToolSpec<I, O>,
  handler: (args: z.output<z.ZodObject<I>>, rc: RequestContext) => Promise<ToolAnswer>,
): void {
  const { app, auth } = env;
  const cap = app.config.mcp.resultMaxChars;
  const run = async (args: z.output<z.ZodObject<I>>): Promise<CallToolResult> => {
    try {
      const actorArgument = (args as { actor?: unknown }).actor;
      const actor =
        spec.budget === 'read'
          ? null
          : checkActorName(typeof actorArgument === 'string' ? actorArgument : env.actorHeader);
      if (spec.budget === 'write') {
        await chargeWriteOrRefuse(app, auth);
      } else if (spec.budget === 'read') {
        app.usageMeter.count(auth.driveId);
      }
      const rc: RequestContext = { app, driveId: auth.driveId, principal: auth, actor, requestId: env.requestId };
      const answer = await handler(args, rc);
      const size = resultChars(answer);
      if (size > cap) {
        // Every tool fits its own answer (pages, ranges); this is the backstop that keeps the promise.
        throw new AppError(
          'BODY_TOO_LARGE',
          `the result is ${size} characters, over the ${cap}-character cap; narrow the request (smaller limit or range)`,
        );
      }
      return {
        content: [{ type: 'text', text: answer.text }, ...(answer.extra ?? [])],
        structuredContent: answer.structured,
      };
    } catch (err) {
      return errorResult(toAppError(env, name, err));
    }
  };
  server.registerTool(
    name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      outputSchema: spec.output,
      annotations: { title: spec.title, ...spec.annotations },
    },
    // The SDK's callback type is generic over the schema; the wrapper receives the parsed arguments.
    ((args: z.output<z.ZodObject<I>>) => run(args)) as unknown as Parameters<McpServer['registerTool']>[2],
  );
}

/**
 * Fits a cursor page into the result cap: fetches with the asked limit and halves it until the
 * answer fits, so the page ends early and its next_cursor continues right after the last item shown.
 */
export async function fitPage<T extends { next_cursor: string | null }>(
  cap: number,
  limit: number,
  fetch: (limit: number) => Promise<T>,
  render: (page: T) => ToolAnswer,
): Promise<ToolAnswer> {
  let n = limit;
  for (;;) {
    const answer = render(await fetch(n));
    if (resultChars(answer) <= cap || n === 1) {
      if (n < limit)
        answer.text += `\n(page shortened to ${n} items to fit the result size cap; continue with next_cursor)`;
      return answer;
    }
    n = Math.max(1, Math.floor(n / 2));
  }
}

/** Read-only annotations; writes say whether they destroy and whether a repeat changes nothing more. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const writes = (destructive: boolean, idempotent: boolean): ToolAnnotations => ({
  readOnlyHint: false,
  destructiveHint: destructive,
  idempotentHint: idempotent,
  openWorldHint: false,
});

/** `ref` arguments: an art_ id, a fld_ id or a path (src/files/refs.ts resolves them). */
export const refArg = z.string().min(1).max(300);
export const isArtId = (ref: string) => hasPrefix(ref, 'art');
export const cursorArg = z
  .string()
  .max(2048)
  .optional()
  .describe('opaque next_cursor from the previous page; resend the same filters with it');
