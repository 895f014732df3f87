/** @agent-drive/client: the typed SDK of Agent Artifact Drive (docs/decisions/client.md). */
export { DriveClient, ok, type DriveClientOptions } from './client.js';
export { TokenSource, type Credential, type TokenUpdate } from './credentials.js';
export { DriveError } from './errors.js';
export { driveMemoryHandlers, driveMemoryTool, MemoryToolError, type MemoryCommand } from './memory.js';
export { followEvents, type FollowOptions } from './events.js';
export { newRunId, parsePoint, seqOf, type Point } from './history.js';
export { filenameHeader, suggestPaths, type NameSuggestion } from './names.js';
export { allItems, eachItem, type CursorPage } from './paging.js';
export { backoffMs, retryAfterMs, withRetries, type RetryOptions } from './retry.js';
export { BUFFERED_UPLOAD_LIMIT, uploadBytes, uploadFile, type UploadOptions } from './uploads.js';
export type * from './types.js';
export type { components, operations, paths } from './schema.js';
export type { Lease, LeaseRequest } from './leases.js';
export { Drive, type Ref } from './drive.js';
