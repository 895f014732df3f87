import type { CallToolResult } from '@modelcontextprotocol/server';

/**
 * Models often write drive paths as `/reports/q1.md`. The path arguments of every tool lose a leading `/` before the
 * schema sees them, and the answer says so (docs/decisions/mcp.md, "Issue 39").
 */
const PATH_ARGUMENTS = ['path', 'ref', 'from', 'to', 'prefix', 'resource', 'rename', 'entrypoint'];

export function stripLeadingSlashes(args: Record<string, unknown>): { args: Record<string, unknown>; note?: string } {
  const stripped: string[] = [];
  const out = { ...args };
  for (const key of PATH_ARGUMENTS) {
    const v = out[key];
    if (typeof v !== 'string' || !v.startsWith('/')) continue;
    const bare = v.replace(/^\/+/, '');
    if (!bare) continue;
    out[key] = bare;
    stripped.push(`${key} "${v}" → "${bare}"`);
  }
  return stripped.length
    ? { args: out, note: `drive paths have no leading /: read ${stripped.join(', ')}` }
    : { args: out };
}

/** Adds the note to a successful answer's text and structured content. */
export function withPathNote(result: CallToolResult, note: string | undefined): CallToolResult {
  // An answer with extra blocks carries its structured JSON as the text: it stays parseable, without the note.
  if (!note || result.isError || !result.structuredContent) return result;
  const [first, ...rest] = result.content;
  const content = first?.type === 'text' ? [{ ...first, text: `${first.text}\n(${note})` }, ...rest] : result.content;
  return { ...result, content, structuredContent: { ...result.structuredContent, path_note: note } };
}
