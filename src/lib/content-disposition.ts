/**
 * A Content-Disposition value (RFC 6266) for a file name: an ASCII `filename` fallback and the exact name as
 * `filename*` (RFC 8187), so `Meeting notes (draft).md` and `résumé.md` come back as they were given.
 */
export function contentDisposition(kind: 'attachment' | 'inline', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '') || 'download';
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${exact}`;
}
