import { InvalidArgumentError, type Command } from 'commander';
import { Drive } from '../drive.js';
import { DriveError } from '../errors.js';
import { globals, positiveInt } from './command-kit.js';
import { emit } from './output.js';
import { driveClient } from './session.js';

/**
 * edit and lines: the REST line operations (POST /v0/artifacts/{art_id}/edit, GET …/text by lines) from a shell, as
 * an agent edits a file without downloading and uploading it whole (issue 57, line operations at every door).
 */
const lineNumber = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('not a line number (0 or more)');
  return n;
};

interface EditOptions {
  old?: string;
  new?: string;
  all?: boolean;
  insertLine?: number;
  text?: string;
  dryRun?: boolean;
  ifMatch?: number;
  merge?: boolean;
  summary?: string;
}

export function addEditCommands(program: Command): void {
  program
    .command('edit')
    .description(
      'edit a text file in place as one new version: replace --old by --new, and/or insert --text after a line',
    )
    .argument('<artifact>', 'path or art_ id')
    .option('--old <text>', 'the exact text to replace (it must occur once, or use --all)')
    .option('--new <text>', 'what replaces --old')
    .option('--all', 'replace every occurrence of --old')
    .option('--insert-line <n>', 'insert --text after this line (0: at the top)', lineNumber)
    .option('--text <text>', 'the text to insert')
    .option('--dry-run', 'print the diff and write nothing')
    .option('--if-match <version>', 'only if the current version is this one (else exit 4)', positiveInt)
    .option('--merge', 'with an older --if-match: merge three-way with the current version (conflict: exit 4)')
    .option('--summary <text>', 'the change summary kept with the version')
    .action(async (ref: string, opts: EditOptions, cmd: Command) => {
      if ((opts.old === undefined) !== (opts.new === undefined))
        throw new DriveError(0, 'USAGE', '--old and --new go together');
      if ((opts.insertLine === undefined) !== (opts.text === undefined))
        throw new DriveError(0, 'USAGE', '--insert-line and --text go together');
      if (opts.old === undefined && opts.insertLine === undefined)
        throw new DriveError(0, 'USAGE', 'nothing to do: give --old/--new, or --insert-line/--text');
      const g = globals(cmd);
      const drive = new Drive(driveClient(g));
      const r = await drive.edit(ref, {
        edits: opts.old === undefined ? [] : [{ oldText: opts.old, newText: opts.new!, replaceAll: opts.all }],
        insertLine: opts.insertLine,
        insertText: opts.text,
        dryRun: opts.dryRun,
        ifMatch: opts.ifMatch,
        merge: opts.merge,
        changeSummary: opts.summary,
      });
      process.stderr.write(
        r.applied
          ? `${r.path}: v${r.base_version} → v${r.artifact!.version_number}\n`
          : `${r.path}: ${opts.dryRun ? 'dry run, nothing written' : 'no change'} (v${r.base_version})\n`,
      );
      emit(g.json, r, () => r.diff.replace(/\n$/, ''));
    });

  program
    .command('lines')
    .description("print lines of a text file (or of a document's unit), numbered as the memory tool views a file")
    .argument('<artifact>', 'path or art_ id')
    .option('--start <n>', 'first line, 1-based', positiveInt)
    .option('--count <n>', 'how many lines', positiveInt)
    .option('--plain', 'without line numbers')
    .option('--unit <n>', "a document's unit (page, slide, sheet…), 1-based", positiveInt)
    .action(async (ref: string, opts: { start?: number; count?: number; plain?: boolean; unit?: number }, cmd) => {
      const g = globals(cmd as Command);
      const drive = new Drive(driveClient(g));
      const r = await drive.lines(ref, {
        start: opts.start,
        count: opts.count,
        numbered: !opts.plain,
        unit: opts.unit,
      });
      emit(g.json, r, () => r.text.replace(/\n$/, ''));
      if (!g.json && r.last_line !== null && r.last_line < r.total_lines)
        process.stderr.write(`lines ${r.line_start}-${r.last_line} of ${r.total_lines}: --start ${r.last_line + 1}\n`);
    });
}
