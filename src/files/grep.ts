import { RE2JS } from 're2js';
import { AppError } from '../lib/errors.js';
import type { RequestContext } from '../platform/request-context.js';
import type { ArtifactRow } from '../records/artifact-records.js';
import { isWikiPath } from './artifact-rules.js';
import { blobBytes, isTextual } from './text.js';
import { decodeCursor, encodeCursor } from '../lib/cursors.js';
import { likePrefix, rows } from '../db/sql.js';

/**
 * grep over the drive's live text artifacts, in path order: a regular expression or a literal,
 * bounded by a prefix, a cap on files read, a cap on matches, an output budget and a time cap.
 * When a bound stops it early, `nextCursor` continues after the last file fully scanned.
 */
export interface GrepInput {
  pattern: string;
  literal: boolean;
  ignoreCase: boolean;
  prefix: string;
  maxFiles: number;
  maxMatches: number;
  /** Stop once the matched lines add up to this many characters. */
  maxChars: number;
  timeMs: number;
  cursor?: string;
  /** Scan the wiki's pages (`_wiki/`) instead of the drive's own files (which skip them). */
  wiki?: boolean;
}

export interface GrepMatch {
  artId: string;
  path: string;
  line: number;
  text: string;
}

export interface GrepResult {
  matches: GrepMatch[];
  filesScanned: number;
  /** Why the scan stopped before the end, or null when it covered every file under the prefix. */
  stoppedBy: 'max_files' | 'max_matches' | 'max_chars' | 'time' | null;
  nextCursor: string | null;
}

const MAX_LINE_CHARS = 500;
const BATCH = 50;

/**
 * Caller patterns run on RE2 (re2js): matching is linear in the line, so no pattern can backtrack
 * the event loop into a stall. RE2 has no backreferences or lookaround; those are refused.
 */
function compile(input: GrepInput): RE2JS {
  const source = input.literal ? RE2JS.quote(input.pattern) : input.pattern;
  try {
    return RE2JS.compile(source, input.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (err) {
    throw new AppError(
      'INVALID_ARGUMENT',
      `pattern is not a regular expression grep runs (RE2 syntax: no backreferences or lookaround): ${(err as Error).message}`,
    );
  }
}

/**
 * The wiki's reads when no language model is configured and the drive has no page (none can be built): WIKI_DISABLED
 * rather than an empty answer; pages written while a model was configured stay readable (docs/decisions/mcp.md).
 */
export async function checkWikiAvailable(rc: RequestContext): Promise<void> {
  if (rc.app.config.llm) return;
  const pages = await rows(
    rc.app.orm.em.fork(),
    `select 1 from artifacts where drive_id = ? and deleted_at is null and path like ? escape '\\' limit 1`,
    [rc.driveId, likePrefix('_wiki/')],
  );
  if (!pages.length)
    throw new AppError('WIKI_DISABLED', 'the wiki is off: this server has no language model configured (LLM_URL)');
}

export async function grepArtifacts(rc: RequestContext, input: GrepInput): Promise<GrepResult> {
  if (input.wiki) await checkWikiAvailable(rc);
  const re = compile(input);
  const deadline = Date.now() + input.timeMs;
  let after = input.cursor
    ? decodeCursor(input.cursor, (v): v is { g: string } => typeof (v as { g?: unknown }).g === 'string').g
    : null;
  const matches: GrepMatch[] = [];
  let chars = 0;
  let filesScanned = 0;
  const stop = (stoppedBy: GrepResult['stoppedBy']): GrepResult => ({
    matches,
    filesScanned,
    stoppedBy,
    nextCursor: after === null ? null : encodeCursor({ g: after }),
  });
  for (;;) {
    const where = ['drive_id = ?', 'deleted_at is null'];
    const params: unknown[] = [rc.driveId];
    if (input.prefix) (where.push(`path like ? escape '\\'`), params.push(likePrefix(input.prefix)));
    if (after !== null) (where.push('path > ? collate "C"'), params.push(after));
    params.push(BATCH);
    const batch = await rows<ArtifactRow>(
      rc.app.orm.em.fork(),
      `select * from artifacts where ${where.join(' and ')} order by path collate "C" limit ?`,
      params,
    );
    if (!batch.length) return { matches, filesScanned, stoppedBy: null, nextCursor: null };
    for (const a of batch) {
      if (isWikiPath(a.path) !== (input.wiki ?? false) || !isTextual(a.file_type, a.content_type)) {
        after = a.path;
        continue;
      }
      if (filesScanned >= input.maxFiles) return stop('max_files');
      if (Date.now() > deadline) return stop('time');
      const text = (
        await blobBytes(rc, {
          artId: a.id,
          hash: a.hash,
          size: Number(a.size_bytes),
          contentType: a.content_type,
          path: a.path,
          versionNumber: a.version_number,
        })
      ).toString('utf8');
      const found: GrepMatch[] = [];
      let foundChars = 0;
      const lines = text.split(/\r?\n/);
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i].length > MAX_LINE_CHARS * 4 ? lines[i].slice(0, MAX_LINE_CHARS * 4) : lines[i];
        if (!re.test(line)) continue;
        const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
        found.push({ artId: a.id, path: a.path, line: i + 1, text: shown });
        foundChars += shown.length + a.path.length + 40;
        if (foundChars > input.maxChars || found.length > input.maxMatches) break;
        if ((i & 63) === 0 && Date.now() > deadline) break;
      }
      // A file's matches are returned whole or not at all, so the cursor never splits a file.
      if (matches.length && matches.length + found.length > input.maxMatches) return stop('max_matches');
      if (matches.length && chars + foundChars > input.maxChars) return stop('max_chars');
      let kept = found.slice(0, input.maxMatches);
      let keptChars = 0;
      kept = kept.filter((m) => (keptChars += m.text.length + m.path.length + 40) <= input.maxChars);
      matches.push(...kept);
      chars += keptChars;
      filesScanned++;
      after = a.path;
      if (kept.length < found.length) return stop(found.length > input.maxMatches ? 'max_matches' : 'max_chars');
    }
  }
}
