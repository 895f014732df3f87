import { randomUUID } from 'node:crypto';
import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AppContext } from '../platform/context.js';
import { checkActorName } from '../files/artifact-rules.js';
import { AppError } from '../lib/errors.js';
import { hasPrefix } from '../lib/ids.js';
import type { Authenticated } from '../identity/authenticate.js';
import type { RequestContext } from '../platform/request-context.js';
import type { SearchService } from '../search/service.js';
import { stripLeadingSlashes, withPathNote } from './path-args.js';
import { chargeWriteOrRefuse } from '../platform/rate-limits.js';
import { refuseReadOnlyWrite } from '../access/authorize.js';
import { withFence } from '../platform/fence-scope.js';
import { RpcError, INVALID_PARAMS } from './protocol.js';
import { argumentProblems, argumentsJsonSchema } from './tool-schemas.js';

/**
 * How every MCP tool is declared and run: a zod input schema (closed: unknown arguments are refused by name), true
 * annotations, the same budgets as REST (a mutating tool charges the credential's hourly write budget before it runs,
 * so a failed write still counts; a read is counted for the monthly usage report), errors as tool results
 * (`isError: true`) carrying the REST error code, and the result-size cap. No output schemas (docs/decisions/mcp.md):
 * `structuredContent` is the whole answer, `text` a short rendering of it.
 */
export interface ToolEnv {
  app: AppContext;
  auth: Authenticated;
  search: SearchService;
  /** X-Drive-Actor of the HTTP request, the default attribution when a tool gets no `actor` argument. */
  actorHeader: string | undefined;
  requestId: string;
  /** The tools of the request's MCP profile (`/mcp?tools=…`); undefined: the default set. */
  profile?: readonly string[];
}

/** Every tool's answer: structured (everything the text says, and more) plus a short text rendering. */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
  /** Content blocks after the text (image or embedded resource for `read`); the text is then the structured JSON. */
  extra?: CallToolResult['content'];
  /** A result the tool itself marks as failed (the memory tool's error strings): isError with this text. */
  isError?: boolean;
}

export type Budget = 'read' | 'write' | 'free';

export interface ToolSpec<I extends z.ZodRawShape> {
  title: string;
  description: string;
  input: I;
  /** `READ_ONLY` or `writes(…)`: a tool whose readOnlyHint is not true writes; a read-only credential never sees it. */
  annotations: ToolAnnotations;
  budget: Budget;
  /** A write tool that changes no path (lease) takes no `fence`. */
  unfenced?: true;
  /** Arguments kept as sent: the memory tool's paths start with /memories, so no leading slash is stripped. */
  rawPaths?: boolean;
}

/** Whether a tool writes: what its annotations declare (no readOnlyHint counts as a write). */
export const toolWrites = (annotations: ToolAnnotations) => annotations.readOnlyHint !== true;

interface RegisteredTool {
  listed: Tool;
  args: z.ZodObject;
  run: (args: Record<string, unknown>) => Promise<CallToolResult>;
  /** Left out of tools/list: a write tool of a read-only credential (calling it answers CREDENTIAL_READ_ONLY). */
  hidden?: boolean;
  rawPaths?: boolean;
}

/** The tools of one request: what tools/list shows and what tools/call runs. */
export class ToolSet {
  private readonly tools = new Map<string, RegisteredTool>();

  add(name: string, tool: RegisteredTool) {
    this.tools.set(name, tool);
  }

  /** Keeps only the named tools (an MCP profile, src/mcp/profiles.ts). */
  only(names: readonly string[]) {
    for (const name of [...this.tools.keys()]) if (!names.includes(name)) this.tools.delete(name);
  }

  drop(names: readonly string[]) {
    for (const name of names) this.tools.delete(name);
  }

  /** The tools this caller may call. */
  list(): Tool[] {
    return [...this.tools.values()].filter((t) => !t.hidden).map((t) => t.listed);
  }

  /** An unknown tool is a protocol error (-32602); arguments that fail the schema are a tool error naming them. */
  async call(name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
    const tool = this.tools.get(name);
    if (!tool)
      throw new RpcError(INVALID_PARAMS, `Unknown tool: ${JSON.stringify(name)}; call tools/list for the tool names`);
    // A write tool of a read-only credential refuses before its arguments are judged (its run starts with the refusal).
    if (tool.hidden) return tool.run({});
    const bare = tool.rawPaths ? { args: args ?? {}, note: undefined } : stripLeadingSlashes(args ?? {});
    const parsed = tool.args.safeParse(bare.args);
    if (!parsed.success) {
      const problems = argumentProblems(name, parsed.error, Object.keys(tool.args.shape));
      return errorResult(new AppError('VALIDATION_ERROR', problems.message, { arguments: problems.arguments }));
    }
    return withPathNote(await tool.run(parsed.data), bare.note);
  }
}

/** The fence of the lease that holds the paths a write tool changes. */
const fenceArg = z.number().int().min(1).optional();

/** The attribution argument of the mutating tools. */
export const actorArg = z.string().max(64).optional().describe('attribution');

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

/** tools/list entries depend on the configuration only: built once per process and configuration. */
const listings = new WeakMap<object, Map<string, Tool>>();
function listingOf(config: object, name: string, build: () => Tool): Tool {
  let byName = listings.get(config);
  if (!byName) listings.set(config, (byName = new Map()));
  let tool = byName.get(name);
  if (!tool) byName.set(name, (tool = build()));
  return tool;
}

export function defineTool<I extends z.ZodRawShape>(
  tools: ToolSet,
  env: ToolEnv,
  name: string,
  spec: ToolSpec<I>,
  handler: (args: z.output<z.ZodObject<I>>, rc: RequestContext) => Promise<ToolAnswer>,
): void {
  const { app, auth } = env;
  const cap = app.config.mcp.resultMaxChars;
  const writesDrive = toolWrites(spec.annotations);
  // A write tool takes the fence of a lease (issue 56) in place of the request's X-Drive-Fence.
  const input: z.ZodRawShape = writesDrive && !spec.unfenced ? { ...spec.input, fence: fenceArg } : spec.input;
  const run = async (args: z.output<z.ZodObject<I>>): Promise<CallToolResult> => {
    try {
      if (writesDrive) refuseReadOnlyWrite(auth);
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
      const fence = (args as { fence?: number }).fence;
      const answer = await (fence === undefined ? handler(args, rc) : withFence(fence, () => handler(args, rc)));
      const size = resultChars(answer);
      if (size > cap) {
        // Every tool fits its own answer (pages, ranges); this is the backstop that keeps the promise.
        throw new AppError(
          'BODY_TOO_LARGE',
          `the result is ${size} characters, over the ${cap}-character cap; narrow the request (smaller limit or range)`,
        );
      }
      // A client that shows only structuredContent would hide an image or embedded file: such an answer has none,
      // and its text blocks carry the whole structured answer.
      // It opens with the one-line summary; the record follows on the next line as JSON without its null fields.
      if (answer.extra?.length) {
        const record = Object.fromEntries(Object.entries(answer.structured).filter(([, v]) => v !== null));
        return { content: [{ type: 'text', text: `${answer.text}\n${JSON.stringify(record)}` }, ...answer.extra] };
      }
      const failed = answer.isError ? { isError: true } : {};
      return { content: [{ type: 'text', text: answer.text }], structuredContent: answer.structured, ...failed };
    } catch (err) {
      return errorResult(toAppError(env, name, err));
    }
  };
  const listed = listingOf(app.config, name, () => ({
    name,
    title: spec.title,
    description: spec.description,
    inputSchema: argumentsJsonSchema(input) as Tool['inputSchema'],
    annotations: spec.annotations,
  }));
  tools.add(name, {
    listed,
    args: z.strictObject(input),
    run: (args) => run(args as z.output<z.ZodObject<I>>),
    hidden: writesDrive && auth.readOnly,
    rawPaths: spec.rawPaths,
  });
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
      if (n < limit) {
        const note = `page shortened to ${n} items to fit the result size cap; continue with next_cursor`;
        answer.text += `\n(${note})`;
        answer.structured.note = note;
      }
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
export const refArg = z.string().min(1).max(300).describe('art_ id or path');
/** A ref that may name a folder too. */
export const anyRefArg = z.string().min(1).max(300).describe('art_ id, fld_ id or path (a folder path may end in /)');
export const asOfArg = z.number().int().min(0).optional().describe('as of this seq');
export const isArtId = (ref: string) => hasPrefix(ref, 'art');
export const cursorArg = z.string().max(2048).optional().describe('from the last page');
