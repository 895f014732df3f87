import type { Command } from 'commander';
import { ok } from '../client.js';
import { followEvents } from '../events.js';
import type { EventOut } from '../types.js';
import { collectLabels, globals, oneOf, positiveInt, readSecret } from './command-kit.js';
import { emit, marked, table } from './output.js';
import { driveClient } from './session.js';

/** search, find, share, events. */
export function addDriveCommands(program: Command): void {
  program
    .command('search')
    .description('lexical full-text search (/v0/search)')
    .argument('<query>', 'words, "phrases", -negation, OR')
    .option('--prefix <prefix>', 'only under this path prefix')
    .option('--label <labels>', 'only with these labels', collectLabels)
    .option('--limit <n>', 'at most n hits (1 to 100)', positiveInt, 20)
    .action(async (q: string, opts: { prefix?: string; label?: string[]; limit: number }, cmd: Command) => {
      const g = globals(cmd);
      const page = await ok(
        driveClient(g).api.GET('/v0/search', {
          params: { query: { q, prefix: opts.prefix, label: opts.label ?? [], limit: opts.limit } },
        }),
      );
      emit(g.json, page.items, () => page.items.map((h) => `${h.path}  ${marked(h.snippet)}`));
    });

  program
    .command('find')
    .description('passage retrieval (/v0/find): hybrid, lexical or semantic')
    .argument('<query>', 'what to find')
    .option('--mode <mode>', 'hybrid, lexical or semantic', oneOf('hybrid', 'lexical', 'semantic'), 'hybrid')
    .option('--prefix <prefix>', 'only under this path prefix')
    .option('--limit <n>', 'at most n passages (1 to 100)', positiveInt, 20)
    .action(async (q: string, opts: { mode: string; prefix?: string; limit: number }, cmd: Command) => {
      const g = globals(cmd);
      const mode = opts.mode as 'hybrid' | 'lexical' | 'semantic';
      const page = await ok(
        driveClient(g).api.GET('/v0/find', {
          params: { query: { q, mode, prefix: opts.prefix, label: [], modality: [], limit: opts.limit } },
        }),
      );
      emit(g.json, page.items, () =>
        page.items.map((h) => {
          const hit = h as { path?: string; art_id: string; ord: number; text?: string; snippet?: string };
          const text = marked(hit.snippet ?? hit.text ?? '').slice(0, 160);
          return `${hit.path ?? hit.art_id}#${hit.ord}  ${text}`;
        }),
      );
      // A lexical-only answer (no provider, passages not embedded yet, provider down) says so, on stderr.
      const { status, note } = page.semantic;
      if (status !== 'ok' && status !== 'not_used') process.stderr.write(`note: semantic ${status}: ${note}\n`);
    });

  program
    .command('share')
    .description('mint a share link for an artifact or folder (the key is shown once)')
    .argument('<resource>', 'path, art_ or fld_ id')
    .option('--role <role>', 'viewer, commenter or editor', oneOf('viewer', 'commenter', 'editor'), 'viewer')
    .option('--expires-in <seconds>', 'link lifetime in seconds', positiveInt)
    .option('--password', 'require a password to open the link: read from AGENT_DRIVE_SHARE_PASSWORD or stdin')
    .action(async (resource: string, opts: ShareOptions, cmd: Command) => {
      const g = globals(cmd);
      const role = opts.role as 'viewer' | 'commenter' | 'editor';
      const share = await ok(
        driveClient(g).api.POST('/v0/shares', {
          body: {
            resource,
            role,
            expires_in: opts.expiresIn,
            password: opts.password ? await readSecret('AGENT_DRIVE_SHARE_PASSWORD', 'Link password: ') : undefined,
          },
        }),
      );
      emit(g.json, share, () => [share.url, `${share.shr_id}: ${share.role}, expires ${share.expires_at ?? 'never'}`]);
    });

  program
    .command('events')
    .description('the drive event log, newest first; --follow prints new events as they happen, oldest first')
    .option('--follow', 'keep printing new events (the stream, or polling on servers without one)')
    .option('--after <seq>', 'with --follow: resume after this event seq')
    .option('--action <action>', 'only this action, e.g. artifact.created')
    .option('--art-id <id>', 'only events of this artifact')
    .option('--limit <n>', 'without --follow: how many (1 to 200)', positiveInt, 50)
    .action(async (opts: EventsOptions, cmd: Command) => {
      const g = globals(cmd);
      const client = driveClient(g);
      if (!opts.follow) {
        const page = await ok(
          client.api.GET('/v0/events', {
            params: { query: { action: opts.action, art_id: opts.artId, limit: opts.limit } },
          }),
        );
        return emit(g.json, page.items, () => table(page.items.map(eventRow)));
      }
      const stop = new AbortController();
      process.once('SIGINT', () => stop.abort());
      process.once('SIGTERM', () => stop.abort());
      const events = followEvents(client, {
        after: opts.after,
        action: opts.action,
        artId: opts.artId,
        signal: stop.signal,
        onTransport: (t) => process.stderr.write(`following events (${t === 'stream' ? 'stream' : 'polling'})\n`),
      });
      // One line per event as it arrives: JSON lines with --json.
      for await (const event of events) {
        if (g.json) process.stdout.write(JSON.stringify(event) + '\n');
        else process.stdout.write(eventRow(event).join('  ') + '\n');
      }
    });
}

interface ShareOptions {
  role: string;
  expiresIn?: number;
  password?: boolean;
}

interface EventsOptions {
  follow?: boolean;
  after?: string;
  action?: string;
  artId?: string;
  limit: number;
}

function eventRow(e: EventOut): string[] {
  const what = (e.metadata.path as string | undefined) ?? e.art_id ?? e.fld_id ?? '';
  return [e.created_at, e.seq === undefined ? '' : `#${e.seq}`, e.action, what, e.actor_name ?? ''].filter(
    (cell, i) => i !== 1 || cell,
  );
}
