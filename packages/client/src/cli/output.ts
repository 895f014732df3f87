/** Human output by default, JSON with --json; progress on stderr for transfers over a few MB. */

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** Prints `value` as JSON with --json, else the human lines. */
export function emit(json: boolean | undefined, value: unknown, human: () => string | string[]): void {
  if (json) return printJson(value);
  const text = human();
  const lines = Array.isArray(text) ? text : [text];
  if (lines.length) process.stdout.write(lines.join('\n') + '\n');
}

export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let n = bytes / 1024;
  let unit = 0;
  while (n >= 1024 && unit < units.length - 1) ((n /= 1024), unit++);
  return `${n.toFixed(n < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Columns padded to their widest cell. */
export function table(rows: string[][]): string[] {
  const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
}

/** Transfers smaller than this show no progress. */
const PROGRESS_FROM_BYTES = 4 * 1024 * 1024;

/**
 * A progress reporter for a transfer, or undefined when it is small or stderr is not a terminal (scripts
 * and tests read clean output). One line, redrawn at most every 100 ms.
 */
export function progressBar(label: string, total: number): ((done: number, all?: number) => void) | undefined {
  if (total < PROGRESS_FROM_BYTES || !process.stderr.isTTY) return undefined;
  let last = 0;
  return (done: number, all = total) => {
    const now = Date.now();
    if (now - last < 100 && done < all) return;
    last = now;
    const width = 30;
    const filled = Math.round((done / all) * width);
    const bar = '#'.repeat(filled) + '-'.repeat(width - filled);
    process.stderr.write(`\r${label} [${bar}] ${humanSize(done)} / ${humanSize(all)}`);
    if (done >= all) process.stderr.write('\n');
  };
}

/** A search snippet for a terminal: `<mark>` matches in bold on a TTY, plain text otherwise. */
export function marked(snippet: string, tty = !!process.stdout.isTTY): string {
  return snippet
    .replace(/\s+/g, ' ')
    .replace(/<mark>(.*?)<\/mark>/g, tty ? '\x1b[1m$1\x1b[22m' : '$1')
    .replace(/<\/?mark>/g, '');
}
