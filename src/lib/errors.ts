/**
 * The one error type of the service and the catalogue of every code it can return.
 *
 * Domain operations throw `AppError(code, message)`; the status comes from the catalogue, so a
 * code always means the same class of failure whichever door (REST, MCP, web) reports it. The REST
 * adapter renders it as the spec's envelope {"detail":{"error":{"code","message", ...extra}}}, the
 * OpenAPI document lists the catalogue's statuses, and MCP tools return the same code in a tool error.
 * The token endpoint's RFC 6749 errors are a separate shape (src/identity/oauth-error.ts).
 */
interface CatalogueEntry {
  status: number;
  meaning: string;
  /** Other statuses the spec gives this code in a particular place (see AppError.withStatus). */
  alsoStatus?: readonly number[];
}

export const ERROR_CATALOGUE = {
  // 400: the request is malformed
  MALFORMED_REQUEST: {
    status: 400,
    meaning: 'the HTTP request itself could not be parsed (written by the HTTP server itself)',
  },
  MALFORMED_JSON: { status: 400, meaning: 'the request body is not valid JSON' },
  INVALID_REQUEST: {
    status: 400,
    meaning:
      'undecodable percent-encoding, a NUL byte in the path, query, a header or a JSON string, or an unreadable body',
  },
  INVALID_BODY: { status: 400, meaning: 'registration or claim-initiation body failed validation', alsoStatus: [415] },
  INVALID_PATH: {
    status: 400,
    meaning: 'path breaks the path rules (spec 8); suggested_path names the path the name rule maps it to',
  },
  INVALID_LABELS: { status: 400, meaning: 'labels break the label rules (spec 8)' },
  INVALID_METADATA: { status: 400, meaning: 'metadata is not a JSON object' },
  INVALID_SOURCE: { status: 400, meaning: 'source is not {"refs": [{type, id}]}' },
  INVALID_ACTOR: { status: 400, meaning: 'X-Drive-Actor is over 64 characters' },
  INVALID_RUN_ID: { status: 400, meaning: 'X-Drive-Run-Id is not 1-64 characters of [A-Za-z0-9_.:-]' },
  INVALID_IF_MATCH: { status: 400, meaning: 'If-Match is not a version number' },
  INVALID_FENCE: { status: 400, meaning: 'X-Drive-Fence (MCP: fence) is not a positive integer' },
  INVALID_LEASE: {
    status: 400,
    meaning: 'a lease needs paths, a prefix or a glob (*, ** and ? only, bounded) and ttl_s from 5 to 3600',
  },
  INVALID_CHANGE_SUMMARY: { status: 400, meaning: 'change summary is over 1000 characters' },
  INVALID_FILENAME: {
    status: 400,
    meaning:
      "X-Drive-Filename is not 1-255 characters of a file name (RFC 8187 encoded), or has a percent escape without UTF-8''",
  },
  INVALID_CONTENT_TYPE: { status: 400, meaning: 'content type is not 1-255 printable ASCII characters' },
  INVALID_CRC32C: { status: 400, meaning: 'crc32c is not a base64 CRC32C' },
  BAD_VISIBILITY: { status: 400, meaning: 'visibility is neither private nor public' },
  BAD_CURSOR: { status: 400, meaning: 'the cursor is malformed' },
  INVALID_PRINCIPAL: {
    status: 400,
    meaning:
      'grant principal breaks the principal rules (anyone: no id or email; agent and org: id; user: exactly one of id and email)',
  },
  INVALID_ROLE: {
    status: 400,
    meaning: "the role is not one the caller may give (a share or grant never exceeds the giver's own role)",
  },
  INVALID_ENTRYPOINT: {
    status: 400,
    meaning: 'compile entrypoint missing, or no engine for its extension (.tex latex, .typ typst)',
  },
  WEBHOOK_URL_REFUSED: {
    status: 400,
    meaning:
      'webhook URL is not http(s) (https in production), carries credentials, or resolves to a loopback, private, ' +
      'link-local or metadata address',
  },
  UNKNOWN_PROVIDER: { status: 400, meaning: 'ID-JAG agent_provider is not on the trust list' },
  CONTENT_TYPE_MISMATCH: { status: 400, meaning: 'token upload Content-Type differs from the one frozen in the token' },
  INVALID_ARGUMENT: {
    status: 400,
    meaning: 'an MCP tool argument breaks a rule its schema cannot express (e.g. bad base64, bad regex)',
  },
  // 401 / 403: who is asking
  UNAUTHENTICATED: { status: 401, meaning: 'missing, invalid, expired or revoked bearer credential' },
  CLAIM_TOKEN_INVALID: { status: 401, meaning: 'unknown claim token, or its drive is gone' },
  TOKEN_INVALID: { status: 401, meaning: 'unknown upload token, or its drive is deleted' },
  TOKEN_EXPIRED: { status: 401, meaning: 'upload token expired' },
  SHARE_PASSWORD_REQUIRED: {
    status: 401,
    meaning: 'the share link is password-protected and the password is missing or wrong',
  },
  ID_JAG_INVALID: { status: 401, meaning: 'the ID-JAG assertion failed verification' },
  FORBIDDEN: { status: 403, meaning: 'the path names another drive than the authenticated one' },
  ID_JAG_EMAIL_UNVERIFIED: { status: 403, meaning: 'the ID-JAG assertion carries no verified email' },
  PERMISSION_DENIED: {
    status: 403,
    meaning: 'the caller can read this resource, but its role lacks the capability the action needs',
  },
  DRIVE_UNCLAIMED: { status: 403, meaning: 'the action needs a claimed drive (API keys are minted after the claim)' },
  CREDENTIAL_READ_ONLY: {
    status: 403,
    meaning:
      'the credential is read-only (scope drive:read or a read-only API key): it reads, lists, searches and finds, never writes',
  },
  WIKI_RESERVED: { status: 403, meaning: 'write or delete under _wiki/' },
  WIKI_DISABLED: { status: 409, meaning: 'the wiki is off: no language model is configured' },
  // 404: absent (or not the caller's to see)
  NOT_FOUND: { status: 404, meaning: 'no such resource for this drive' },
  ARTIFACT_NOT_FOUND: { status: 404, meaning: 'no live artifact with this id or path' },
  UNIT_NOT_FOUND: { status: 404, meaning: 'the document has no such page, slide, sheet or unit; units says how many' },
  UPLOAD_NOT_FOUND: { status: 404, meaning: 'no such large upload for this drive' },
  METHOD_NOT_ALLOWED: { status: 405, meaning: 'the path exists but not with this method; see Allow' },
  PROJECT_NOT_FOUND: { status: 404, meaning: 'the live folder has no project config (or no such live folder)' },
  JOB_NOT_FOUND: { status: 404, meaning: 'no such compile job for this drive' },
  WEBHOOK_NOT_FOUND: { status: 404, meaning: 'no such live webhook for this drive' },
  RUN_NOT_FOUND: { status: 404, meaning: 'no event of this drive carries this run id' },
  LEASE_NOT_FOUND: { status: 404, meaning: 'no such lease on this drive' },
  SNAPSHOT_NOT_FOUND: { status: 404, meaning: 'no such live snapshot for this drive' },
  FEEDBACK_NOT_FOUND: {
    status: 404,
    meaning: "no such feedback ticket for this drive (another drive's ticket looks absent)",
  },
  // 409 / 410 / 412: state conflicts
  PATH_CONFLICT: { status: 409, meaning: 'rename or copy target path taken' },
  PATH_OCCUPIED: { status: 409, meaning: 'restore target holds a live artifact; see restore_options' },
  FOLDER_PATH_CONFLICT: { status: 409, meaning: 'folder create or move collision' },
  PATCH_NOT_APPLIED: { status: 409, meaning: 'a V4A patch hunk or precondition failed; no file was changed' },
  MEMORY_TOO_LARGE: { status: 409, meaning: 'the memory prefix holds more entries than one memory command reads' },
  FOLDER_RECURSIVE_REQUIRED: { status: 409, meaning: 'folder has live descendants; delete with recursive=true' },
  ALREADY_CLAIMED: { status: 409, meaning: 'the identity is already claimed' },
  TOKEN_REPLAYED: { status: 409, meaning: 'single-use upload token reused' },
  MERGE_CONFLICT: {
    status: 409,
    meaning: 'three-way merge: the write and the current version changed the same lines; conflicts lists the hunks',
  },
  EDIT_NO_MATCH: { status: 409, meaning: 'edit: old_text does not occur in the current text' },
  EDIT_AMBIGUOUS: { status: 409, meaning: 'edit: old_text occurs more than once; add context or set replace_all' },
  UPLOAD_SIZE_MISMATCH: { status: 409, meaning: 'uploaded object size differs from the declared size_bytes' },
  CHECKSUM_MISMATCH: { status: 409, meaning: 'uploaded object checksum differs from the declared crc32c' },
  UPLOAD_MISSING: { status: 409, meaning: 'no object was uploaded to upload_url' },
  UPLOAD_CHANGED: { status: 409, meaning: 'the uploaded object changed during commit' },
  JOB_NOT_CANCELLABLE: { status: 409, meaning: 'the compile job already ended; only queued or running jobs cancel' },
  FEEDBACK_TRANSITION_INVALID: {
    status: 409,
    meaning: 'the feedback ticket cannot move from its current status to the requested one; see current_status',
  },
  WEBHOOK_LIMIT_REACHED: { status: 409, meaning: 'the drive already has the most live webhooks allowed' },
  FEED_GAP_TOO_LARGE: {
    status: 409,
    meaning: 'the stream resume point is more than FEED_CATCH_UP_MAX events behind; page GET /v0/events?after= first',
  },
  RUN_CONFLICT: {
    status: 409,
    meaning: 'a later change by another run touches what the revert or rewind would undo; see conflicts (or force)',
  },
  LEASE_CONFLICT: { status: 409, meaning: 'live leases hold what the lease would cover; see conflicts' },
  LEASE_EXPIRED: { status: 409, meaning: 'the lease lapsed or was released; take a new one' },
  LEASE_LIMIT_REACHED: { status: 409, meaning: 'the drive already holds the most live leases allowed' },
  FENCE_STALE: {
    status: 409,
    meaning: 'the fence is older than a lease granted since on the path: the lease lapsed and another took it',
  },
  PINNED_BY_SNAPSHOT: { status: 409, meaning: 'a live snapshot needs this trashed file; delete the snapshot first' },
  SNAPSHOT_LIMIT_REACHED: { status: 409, meaning: 'the drive already has the most live snapshots allowed' },
  HISTORY_PURGED: {
    status: 410,
    meaning: 'the point or run is older than what retention kept; see purged for what is gone',
  },
  UPLOAD_EXPIRED: { status: 410, meaning: 'the large-upload session expired' },
  PRECONDITION_FAILED: { status: 412, meaning: 'If-Match does not equal the current version' },
  LOCKED: {
    status: 423,
    meaning: 'a live lease holds the path: send its fence in X-Drive-Fence (MCP: fence); see holder and expires_at',
  },
  // 413 / 415: size and encoding
  ARTIFACT_TOO_LARGE: { status: 413, meaning: 'upload body over the per-artifact limit' },
  BODY_TOO_LARGE: { status: 413, meaning: 'JSON request body too large' },
  METADATA_TOO_LARGE: { status: 413, meaning: 'metadata over 16 KB serialised or over 256 keys (at any depth)' },
  BYTES_LIMIT: { status: 413, meaning: 'token upload body over the size cap signed into the token' },
  STORAGE_QUOTA_EXCEEDED: {
    status: 413,
    meaning: 'the write would exceed the drive storage quota (402 at large-upload begin)',
    alsoStatus: [402],
  },
  UNSUPPORTED_ENCODING: { status: 415, meaning: 'unsupported body encoding or charset' },
  MERGE_TOO_LARGE: {
    status: 413,
    meaning: 'three-way merge over its bounds (2 MB of text, 50,000 lines, 2,000 changed lines a side, or its time)',
  },
  NOT_TEXT: { status: 415, meaning: 'the operation needs a text artifact (edit, grep, read by range)' },
  NOT_A_DOCUMENT: {
    status: 404,
    meaning: 'GET …/text: the artifact has no document text (not a PDF, Office, OpenDocument, EPUB, HTML or RTF one)',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    meaning: 'request headers over the server limit (written by the HTTP server itself)',
  },
  // 422 / 429
  INVALID_PATCH: { status: 400, meaning: 'the V4A patch does not parse (line named in the error)' },
  VALIDATION_ERROR: { status: 422, meaning: 'path, query, header or body failed schema validation' },
  AS_OF_OUT_OF_RANGE: {
    status: 404,
    meaning: 'as_of (or a rewind to_seq) is past the drive’s newest seq; newest_seq says where the feed ends',
  },
  RATE_LIMITED: {
    status: 429,
    meaning:
      'a write or rate budget is exhausted, too many open event streams, or an undo, rewind or preview of the drive is already running; see Retry-After',
  },
  // 5xx: the server or a dependency
  INTERNAL: { status: 500, meaning: 'unexpected error; the message carries a logged error id' },
  EMBEDDINGS_NOT_CONFIGURED: { status: 500, meaning: 'find mode=semantic without an embeddings provider (spec 7)' },
  EMBEDDINGS_UNAVAILABLE: { status: 502, meaning: 'the embeddings provider failed' },
  AGENT_AUTH_NOT_CONFIGURED: { status: 503, meaning: 'agent registration unavailable; retry later' },
  SERVICE_BUSY: {
    status: 503,
    meaning:
      'the server holds its most open connections, or an undo or rewind hit its lock or statement timeout; retry after Retry-After',
  },
  NOT_READY: { status: 503, meaning: 'a dependency is unreachable (readiness probe)' },
  DATABASE_UNAVAILABLE: { status: 503, meaning: 'PostgreSQL is unreachable; retry after Retry-After' },
  STORAGE_FAILURE: { status: 503, meaning: 'object storage unavailable' },
  UPLOADS_UNAVAILABLE: { status: 503, meaning: 'large uploads cannot be served right now' },
  WORKFLOWS_UNAVAILABLE: { status: 503, meaning: 'the workflow service (Temporal) is unavailable; retry later' },
  ENGINE_UNAVAILABLE: {
    status: 503,
    meaning:
      'the compile engine is not installed on this server; a job for it ends failed with this error_code and a message naming what to install',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export class AppError extends Error {
  status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra fields the envelope carries next to code and message (e.g. current_version). */
    readonly extra: Record<string, unknown> = {},
    /** Response headers that belong to the answer (Retry-After, WWW-Authenticate). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_CATALOGUE[code].status;
  }

  /** The spec gives a few codes a second status in one place (quota at large-upload begin is 402). */
  withStatus(status: number): this {
    const entry: CatalogueEntry = ERROR_CATALOGUE[this.code];
    if (!entry.alsoStatus?.includes(status)) throw new Error(`${this.code} is never ${status} (see ERROR_CATALOGUE)`);
    this.status = status;
    return this;
  }
}

export const notFound = (message = 'not found') => new AppError('NOT_FOUND', message);

/** Every status the given codes (default: the whole catalogue) can have: what the OpenAPI document declares. */
export function catalogueStatuses(codes: readonly ErrorCode[] = Object.keys(ERROR_CATALOGUE) as ErrorCode[]): number[] {
  const all = codes.flatMap((c) => {
    const e: CatalogueEntry = ERROR_CATALOGUE[c];
    return [e.status, ...(e.alsoStatus ?? [])];
  });
  return [...new Set(all)].sort((a, b) => a - b);
}

/** The codes of the catalogue that answer with `status`. */
export function codesWithStatus(
  status: number,
  codes: readonly ErrorCode[] = Object.keys(ERROR_CATALOGUE) as ErrorCode[],
): ErrorCode[] {
  return codes.filter((c) => {
    const e: CatalogueEntry = ERROR_CATALOGUE[c];
    return e.status === status || e.alsoStatus?.includes(status);
  });
}

/** The spec's error envelope (SPEC 7): every door that answers JSON errors writes it through here. */
export function errorEnvelope(code: string, message: string, extra: Record<string, unknown> = {}) {
  return { detail: { error: { code, message, ...extra } } };
}
