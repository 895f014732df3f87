/**
 * The conformance sequence: a fixed script of the edge cases (every error string, view ranges at the edges, inserts at
 * 0, at the end and beyond, str_replace with 0 and 2+ matches, folder deletes and renames into new folders) followed
 * by seeded random commands over a small name pool (nested folders, unicode file names, empty files).
 */
export type Command = Record<string, unknown> & { command: string };

const FIXED: Command[] = [
  { command: 'view', path: '/memories' },
  { command: 'view', path: '/memories/none.md' },
  { command: 'view', path: 'memories/x.md' },
  { command: 'view', path: '/memories/../etc/passwd' },
  { command: 'create', path: '/memories/notes.md', file_text: 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n' },
  { command: 'create', path: '/memories/notes.md', file_text: 'again' },
  { command: 'create', path: '/memories/empty.txt', file_text: '' },
  { command: 'create', path: '/memories/a/b/c/deep.md', file_text: 'deep\n' },
  { command: 'create', path: '/memories/café notes.md', file_text: 'ünïcødé ✓\nzweite Zeile' },
  { command: 'create', path: '/memories/.hidden', file_text: 'secret' },
  { command: 'create', path: '/memories/big.txt', file_text: 'x'.repeat(1280) },
  { command: 'create', path: '/memories/bigger.txt', file_text: 'y'.repeat(1536 + 51) },
  { command: 'view', path: '/memories' },
  { command: 'view', path: '/memories/' },
  { command: 'view', path: '/memories/a' },
  { command: 'view', path: '/memories/a/b/c' },
  { command: 'view', path: '/memories/notes.md' },
  { command: 'view', path: '/memories/empty.txt' },
  { command: 'view', path: '/memories/café notes.md' },
  { command: 'view', path: '/memories/notes.md', view_range: [1, 1] },
  { command: 'view', path: '/memories/notes.md', view_range: [0, 2] },
  { command: 'view', path: '/memories/notes.md', view_range: [-5, 3] },
  { command: 'view', path: '/memories/notes.md', view_range: [3, -1] },
  { command: 'view', path: '/memories/notes.md', view_range: [7, 8] },
  { command: 'view', path: '/memories/notes.md', view_range: [8, 8] },
  { command: 'view', path: '/memories/notes.md', view_range: [20, 30] },
  { command: 'view', path: '/memories/notes.md', view_range: [2, -3] },
  { command: 'view', path: '/memories/notes.md', view_range: [5, 2] },
  { command: 'view', path: '/memories/notes.md', view_range: [2] },
  { command: 'view', path: '/memories/./a/../notes.md', view_range: [1, 2] },
  { command: 'str_replace', path: '/memories/notes.md', old_str: 'nothing here', new_str: 'x' },
  { command: 'str_replace', path: '/memories/notes.md', old_str: 'o', new_str: '0' },
  { command: 'str_replace', path: '/memories/notes.md', old_str: 'three', new_str: 'THREE\n3' },
  { command: 'str_replace', path: '/memories/notes.md', old_str: 'one', new_str: '' },
  { command: 'str_replace', path: '/memories/notes.md', old_str: 'seven\n', new_str: 'seven\neight\n' },
  { command: 'str_replace', path: '/memories/missing.md', old_str: 'a', new_str: 'b' },
  { command: 'str_replace', path: '/memories/a', old_str: 'a', new_str: 'b' },
  { command: 'str_replace', path: '/memories/empty.txt', old_str: 'x', new_str: 'y' },
  { command: 'view', path: '/memories/notes.md' },
  { command: 'insert', path: '/memories/notes.md', insert_line: 0, insert_text: 'zero' },
  { command: 'insert', path: '/memories/notes.md', insert_line: 10, insert_text: 'last\n\n' },
  { command: 'insert', path: '/memories/notes.md', insert_line: 99, insert_text: 'beyond' },
  { command: 'insert', path: '/memories/notes.md', insert_line: -1, insert_text: 'negative' },
  { command: 'insert', path: '/memories/empty.txt', insert_line: 0, insert_text: 'first' },
  { command: 'insert', path: '/memories/missing.md', insert_line: 0, insert_text: 'x' },
  { command: 'insert', path: '/memories/a/b', insert_line: 0, insert_text: 'x' },
  { command: 'view', path: '/memories/notes.md' },
  { command: 'view', path: '/memories/empty.txt' },
  { command: 'rename', old_path: '/memories/notes.md', new_path: '/memories/archive/2026/notes.md' },
  { command: 'rename', old_path: '/memories/notes.md', new_path: '/memories/other.md' },
  { command: 'rename', old_path: '/memories/empty.txt', new_path: '/memories/big.txt' },
  { command: 'rename', old_path: '/memories', new_path: '/memories/x' },
  { command: 'rename', old_path: '/memories/a/b', new_path: '/memories/moved/b2' },
  { command: 'rename', old_path: '/memories/ghost.md', new_path: '/memories/ghosts/ghost.md' },
  { command: 'view', path: '/memories' },
  { command: 'delete', path: '/memories' },
  { command: 'delete', path: '/memories/nothing' },
  { command: 'delete', path: '/memories/big.txt' },
  { command: 'delete', path: '/memories/moved' },
  { command: 'delete', path: '/memories/../x' },
  { command: 'view', path: '/memories' },
];

/** A deterministic generator (mulberry32): the same seed gives the same sequence on every run. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DIRS = ['', 'projects', 'projects/alpha', 'people', 'people/team/notes', 'x'];
const FILES = ['todo.md', 'résumé.md', 'log.txt', 'ideas', 'Ünïcode ✓.md', 'empty.md'];
const TEXTS = ['', 'a\n', 'a\nb\nc\n', 'line a\nline b\nline a\n', 'no newline at end', '\n\n\n', 'ü ✓ 中文\nx\n'];

export function conformanceCommands(seed = 57, randomCount = 120): Command[] {
  const next = random(seed);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const file = () => `/memories/${[pick(DIRS), pick(FILES)].filter(Boolean).join('/')}`;
  const dir = () => `/memories${pick(DIRS) ? `/${pick(DIRS)}` : ''}`;
  const out = [...FIXED];
  for (let i = 0; i < randomCount; i++) {
    const kind = pick(['view', 'view', 'create', 'create', 'str_replace', 'insert', 'delete', 'rename', 'viewdir']);
    if (kind === 'viewdir') out.push({ command: 'view', path: dir() });
    else if (kind === 'view') {
      const range = next() < 0.5 ? undefined : [Math.floor(next() * 5) - 1, Math.floor(next() * 6) - 1];
      out.push({ command: 'view', path: file(), ...(range ? { view_range: range } : {}) });
    } else if (kind === 'create') out.push({ command: 'create', path: file(), file_text: pick(TEXTS) });
    else if (kind === 'str_replace')
      out.push({ command: 'str_replace', path: file(), old_str: pick(['a', 'line a', 'b\n', 'zz']), new_str: 'Q' });
    else if (kind === 'insert')
      out.push({ command: 'insert', path: file(), insert_line: Math.floor(next() * 5) - 1, insert_text: 'ins' });
    else if (kind === 'delete') out.push({ command: 'delete', path: next() < 0.8 ? file() : dir() });
    else {
      const [from, to] = [next() < 0.8 ? file() : dir(), file()];
      // Moving a folder into itself is an OSError repr in the reference, not a memory tool result.
      if (!to.startsWith(`${from}/`)) out.push({ command: 'rename', old_path: from, new_path: to });
    }
  }
  out.push({ command: 'view', path: '/memories' });
  return out;
}
