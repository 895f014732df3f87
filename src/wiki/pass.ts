import type { AppContext } from '../platform/context.js';
import { rows } from '../db/sql.js';
import { findArtifactRecord, type ArtifactRow } from '../records/artifact-records.js';
import { isWikiPath } from '../files/artifact-rules.js';
import { findLiveDrive } from '../drives/drives.js';
import { wikiIndexingOf } from '../drives/drive-settings.js';
import { llmIndexForHash, recordLlmIndex } from '../files/llm-index.js';
import { readContentBytes } from '../files/versions.js';
import { extract, readsContent, type Extracted } from '../lib/extract.js';
import { storedIndex, type LlmIndex } from './llm-index.js';
import { dirtyPages, mentionsOf, replaceSourceMentions, touchSourcePages, type PageKey } from './mentions.js';
import { refreshPage } from './pages.js';
import { firstChars, WikiReplyError, type WikiModel } from './provider.js';
import type { OutboxRequest } from '../outbox/outbox.js';

/**
 * One artifact's wiki pass: brings what the artifact contributes to the wiki to its current state
 * (the outbox coalesces requests, so the pass reads the artifact rather than trusting the ops).
 * - gone (trash, purge), or no longer text: its mentions leave every page;
 * - a `_wiki/` page, or a drive that is gone: nothing;
 * - same bytes as the last pass (or as another artifact of the drive already read): the stored
 *   llm_index is reapplied, nothing is sent;
 * - switch off: nothing is sent (pages keep what earlier passes put there; removals still apply);
 * - otherwise the first 120,000 characters of the extracted text go to the model, the reply is
 *   stored as the artifact's llm_index and replaces the source's mentions.
 * A reply that stays invalid is recorded in `wiki_failures` and changes no page.
 */
export type PassOutcome = 'skipped' | 'removed' | 'renamed' | 'reused' | 'indexed' | 'off' | 'failed';

export interface PassDeps {
  ctx: AppContext;
  model: WikiModel;
}

/** The text the wiki may read (docs/decisions.md, Wiki → What counts as text), or null. */
export function wikiTextOf(extracted: Extracted): string | null {
  let text: string;
  if (extracted.kind === 'text') text = extracted.text;
  else if (extracted.kind === 'pdf') text = extracted.pages.join('\n\n');
  else if (extracted.kind === 'timed') text = extracted.cues.map((c) => c.text).join('\n');
  else if (extracted.kind === 'units') text = extracted.units.map((u) => u.text).join('\n\n');
  else return null;
  return text.trim() ? text : null;
}

export async function wikiPass(deps: PassDeps, req: OutboxRequest): Promise<PassOutcome> {
  const { ctx } = deps;
  const drive = await findLiveDrive(ctx.orm.em.fork(), req.driveId);
  if (!drive) return 'skipped';
  const art = await findArtifactRecord(ctx, req.driveId, req.artId);
  if (art && isWikiPath(art.path)) return 'skipped';
  const outcome = await contribution(deps, req, art, wikiIndexingOf(drive.settings));
  await renderDirty(ctx, req.driveId);
  return outcome;
}

async function contribution(
  deps: PassDeps,
  req: OutboxRequest,
  art: ArtifactRow | null,
  on: boolean,
): Promise<PassOutcome> {
  const { ctx } = deps;
  if (!art) return (await removeSource(ctx, req)) ? 'removed' : 'skipped';
  const known = art.wiki_hash === art.hash ? storedIndex(art.llm_index) : null;
  if (known) {
    await applyIndex(ctx, art, known);
    if (req.ops.includes('record')) await touchSourcePages(ctx, art.drive_id, art.id);
    return req.ops.includes('content') ? 'reused' : 'renamed';
  }
  const reused = storedIndex(await llmIndexForHash(ctx, art.drive_id, art.hash));
  if (reused) {
    if (await recordLlmIndex(ctx, art.drive_id, art.id, art.hash, reused)) await applyIndex(ctx, art, reused);
    return 'reused';
  }
  const text = readsContent(art.content_type, art.path)
    ? wikiTextOf(await extract(art.content_type, art.path, await readContentBytes(ctx, art.hash)))
    : null;
  if (text === null) return (await removeSource(ctx, req)) ? 'removed' : 'skipped';
  if (!on) return 'off';
  // A reply that stayed invalid for these bytes is not asked for again until the content changes.
  if (
    (await rows(ctx.orm.em.fork(), `select 1 from wiki_failures where art_id = ? and hash = ?`, [art.id, art.hash]))
      .length
  )
    return 'failed';
  let index: LlmIndex;
  try {
    ctx.usageMeter.count(art.drive_id, 'indexing_ops');
    ({ index } = await deps.model.index({ path: art.path, contentType: art.content_type, text: firstChars(text) }));
  } catch (err) {
    if (!(err instanceof WikiReplyError)) throw err;
    await recordFailure(ctx, art, err);
    return 'failed';
  }
  // The artifact changed or left while the model read it: the newer request brings it up to date.
  if (!(await recordLlmIndex(ctx, art.drive_id, art.id, art.hash, index))) return 'skipped';
  await applyIndex(ctx, art, index);
  await rows(ctx.orm.em.fork(), `delete from wiki_failures where art_id = ?`, [art.id]);
  return 'indexed';
}

async function applyIndex(ctx: AppContext, art: ArtifactRow, index: LlmIndex): Promise<PageKey[]> {
  return replaceSourceMentions(ctx, art.drive_id, art.id, mentionsOf(index));
}

async function removeSource(ctx: AppContext, req: OutboxRequest): Promise<boolean> {
  return (await replaceSourceMentions(ctx, req.driveId, req.artId, [])).length > 0;
}

async function recordFailure(ctx: AppContext, art: ArtifactRow, err: WikiReplyError): Promise<void> {
  ctx.logger.warn(
    { driveId: art.drive_id, artId: art.id, err: err.message },
    'wiki: no valid reply; pages left unchanged',
  );
  await rows(
    ctx.orm.em.fork(),
    `insert into wiki_failures (art_id, drive_id, hash, error, attempts) values (?, ?, ?, ?, ?)
     on conflict (art_id) do update set hash = excluded.hash, error = excluded.error, attempts = excluded.attempts, failed_at = now()`,
    [art.id, art.drive_id, art.hash, err.message.slice(0, 2000), err.attempts],
  );
}

/** Renders every dirty page of the drive (this pass's, and any a stopped pass left). */
async function renderDirty(ctx: AppContext, driveId: string): Promise<void> {
  for (const page of await dirtyPages(ctx, driveId)) await refreshPage(ctx, driveId, page);
}
