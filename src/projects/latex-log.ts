import type { Diagnostic } from './jobs.js';

/**
 * Diagnostics from a TeX log (pdflatex with -file-line-error). Errors in `file:line: message`
 * form carry their own file; `! message` errors, `LaTeX Warning`s, package warnings and bad boxes
 * get the file TeX had open, tracked through the log's `(file ... )` nesting. Paths are made
 * relative to the project folder (`entryDir` is the entrypoint's folder, where TeX ran).
 */
const FILE_LINE =
  /^(\.{0,2}\/?[^\s:()][^:()]*\.(?:tex|sty|cls|bib|bbl|aux|clo|def|cfg|fd|ltx|dtx|ins|toc|lof|lot|out|typ)):(\d+): (.*)$/;
const OPEN_FILE = /^\(([^\s()]+)/;

function normalise(file: string, entryDir: string): string {
  if (file.startsWith('/')) return file;
  const rel = file.replace(/^\.\//, '');
  const joined = entryDir ? `${entryDir}/${rel}` : rel;
  // Resolve `a/../b` segments the log may carry.
  const out: string[] = [];
  for (const seg of joined.split('/')) {
    if (seg === '..') out.pop();
    else if (seg && seg !== '.') out.push(seg);
  }
  return out.join('/');
}

export function parseLatexLog(log: string, entryDir = ''): Diagnostic[] {
  const lines = log.split(/\r?\n/);
  const stack: (string | null)[] = [];
  const current = () => {
    for (let i = stack.length - 1; i >= 0; i--) if (stack[i]) return stack[i];
    return null;
  };
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  const add = (d: Diagnostic) => {
    const key = `${d.severity}|${d.file}|${d.line}|${d.message}`;
    if (!seen.has(key)) (seen.add(key), out.push(d));
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fl = FILE_LINE.exec(line);
    if (fl) {
      const message = fl[3].trim();
      if (!message.startsWith('==> Fatal error'))
        add({ severity: 'error', file: normalise(fl[1], entryDir), line: Number(fl[2]), message });
      continue;
    }
    if (line.startsWith('! ')) {
      let lineNo: number | null = null;
      for (let j = i + 1; j < Math.min(lines.length, i + 30); j++) {
        const m = /^l\.(\d+)/.exec(lines[j]);
        if (m) {
          lineNo = Number(m[1]);
          break;
        }
      }
      const file = current();
      const message = line.slice(2).trim();
      if (!/^Emergency stop|^==> Fatal error/.test(message))
        add({ severity: 'error', file: file && normalise(file, entryDir), line: lineNo, message });
      continue;
    }
    const warn = /^(?:LaTeX|Package [\w-]+|Class [\w-]+|pdfTeX) (?:Font )?Warning: (.*)$/.exec(line);
    if (warn) {
      let message = warn[1];
      // Continuation lines are indented (package warnings prefix `(pkg)`), ending at a blank line.
      for (let j = i + 1; j < lines.length && lines[j].trim() !== '' && /^(\s|\(\w)/.test(lines[j]); j++) {
        message += ' ' + lines[j].replace(/^\([\w-]+\)\s*/, '').trim();
      }
      const m = /on input line (\d+)/.exec(message);
      const file = current();
      add({
        severity: 'warning',
        file: file && normalise(file, entryDir),
        line: m ? Number(m[1]) : null,
        message: message.trim(),
      });
    } else {
      const box = /^(Overfull|Underfull) \\[hv]box .*? (?:in paragraph |detected )at lines? (\d+)/.exec(line);
      if (box) {
        const file = current();
        add({
          severity: 'warning',
          file: file && normalise(file, entryDir),
          line: Number(box[2]),
          message: line.trim(),
        });
      }
    }
    // Track the open files: `(name` opens, `)` closes; an opening that is not a file still nests.
    for (let k = 0; k < line.length; k++) {
      const c = line[k];
      if (c === '(') {
        const m = OPEN_FILE.exec(line.slice(k));
        const name = m && /\.\w+$/.test(m[1]) && /^(\.|\/|[\w-])/.test(m[1]) ? m[1] : null;
        stack.push(name);
      } else if (c === ')') {
        stack.pop();
      }
    }
  }
  return out;
}
