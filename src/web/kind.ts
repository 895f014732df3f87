/**
 * A file's type as people name it ("Markdown", "PDF", "PNG image"), from its content type and name; the MIME type
 * stays in the tooltip.
 */
const BY_TYPE: Record<string, string> = {
  'text/markdown': 'Markdown',
  'text/x-markdown': 'Markdown',
  'text/plain': 'Text',
  'text/csv': 'CSV table',
  'text/tab-separated-values': 'TSV table',
  'text/html': 'Web page',
  'application/json': 'JSON',
  'application/pdf': 'PDF',
  'application/zip': 'ZIP archive',
  'application/x-tex': 'LaTeX',
  'text/x-tex': 'LaTeX',
  'image/svg+xml': 'SVG image',
  'application/octet-stream': 'File',
};
const BY_EXT: Record<string, string> = {
  md: 'Markdown',
  ts: 'TypeScript',
  tsx: 'TypeScript',
  js: 'JavaScript',
  mjs: 'JavaScript',
  py: 'Python',
  go: 'Go',
  rs: 'Rust',
  java: 'Java',
  rb: 'Ruby',
  sh: 'Shell script',
  sql: 'SQL',
  yaml: 'YAML',
  yml: 'YAML',
  toml: 'TOML',
  tex: 'LaTeX',
  bib: 'BibTeX',
  css: 'CSS',
  txt: 'Text',
  csv: 'CSV table',
  json: 'JSON',
};

export function kindLabel(contentType: string, path: string): string {
  const t = contentType.split(';')[0].trim().toLowerCase();
  const ext = path.includes('.') ? path.slice(path.lastIndexOf('.') + 1).toLowerCase() : '';
  if (BY_TYPE[t] && t !== 'text/plain' && t !== 'application/octet-stream') return BY_TYPE[t];
  if (BY_EXT[ext]) return BY_EXT[ext];
  if (BY_TYPE[t]) return BY_TYPE[t];
  const [major, minor = ''] = t.split('/');
  if (major === 'image') return `${minor.replace(/^x-/, '').toUpperCase()} image`;
  if (major === 'audio') return 'Audio';
  if (major === 'video') return 'Video';
  if (major === 'text') return 'Text';
  return 'File';
}
