import { DriveError } from '../errors.js';

/** Exit codes of `agent-drive`, for scripts (documented in `agent-drive --help` and docs/decisions/client.md). */
export const EXIT = {
  ok: 0,
  /** Anything else: a server error, a network failure, a refused request. */
  failed: 1,
  /** The command line itself was wrong (unknown command or option, missing argument). */
  usage: 2,
  /** 404, or a local file that does not exist. */
  notFound: 3,
  /** 409 (path taken, occupied, replayed), 412 (If-Match differs), or a local file `get` would replace. */
  conflict: 4,
  /** 401/403: no credential, an expired one, or not allowed. */
  auth: 5,
} as const;

export const EXIT_CODES_HELP = `
Exit codes: 0 ok, 1 failed, 2 usage, 3 not found, 4 conflict (409/412, or a local file that exists), 5 not authenticated or not allowed.`;

export function exitCodeOf(err: unknown): number {
  if (err instanceof DriveError) {
    if (err.code === 'USAGE') return EXIT.usage;
    if (err.status === 404) return EXIT.notFound;
    if (err.status === 409 || err.status === 412 || err.code === 'FILE_EXISTS') return EXIT.conflict;
    if (err.status === 401 || err.status === 403 || err.code === 'invalid_grant') return EXIT.auth;
    return EXIT.failed;
  }
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return EXIT.notFound;
  return EXIT.failed;
}
