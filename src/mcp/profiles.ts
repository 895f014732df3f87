import { AppError } from '../lib/errors.js';

/**
 * MCP profiles (docs/decisions/memory-tool.md): named tool sets chosen by the endpoint's query string, `/mcp?tools=…`,
 * so a stock client configured with that URL sends it on every request (the endpoint is stateless: the profile is
 * the URL's). `all` is the default: the drive's own tools; the dialect tools models are trained on are opt-in.
 */
export const MCP_PROFILES = {
  memory: ['memory'],
  patch: ['apply_patch', 'read'],
  code: [
    'read',
    'list',
    'lookup',
    'find',
    'grep',
    'search',
    'edit',
    'upload',
    'move',
    'delete',
    'memory',
    'apply_patch',
  ],
} as const satisfies Record<string, readonly string[]>;

export type McpProfile = keyof typeof MCP_PROFILES | 'all';

/** The tool names of the profile a request names (undefined: every default tool); an unknown profile is refused. */
export function profileTools(query: unknown): readonly string[] | undefined {
  if (query === undefined || query === 'all') return undefined;
  if (typeof query === 'string' && Object.hasOwn(MCP_PROFILES, query))
    return MCP_PROFILES[query as keyof typeof MCP_PROFILES];
  const known = ['all', ...Object.keys(MCP_PROFILES)].join(', ');
  throw new AppError(
    'VALIDATION_ERROR',
    `unknown MCP profile ?tools=${JSON.stringify(query)}; known profiles: ${known}`,
  );
}

/** Tools only a profile offers: left out of the default list (its 24,000-character budget). */
export const PROFILE_ONLY_TOOLS = ['memory', 'apply_patch'];
