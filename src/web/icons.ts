import { Html } from './html.js';

/**
 * Inline SVG icons (stroke paths in the style of Feather/Lucide, drawn here): they render the same everywhere, with no
 * emoji font and no extra request; decorative, so hidden from assistive technology.
 */
const PATHS = {
  folder: '<path d="M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z"/>',
  file: '<path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z"/><path d="M14 3v5h5"/>',
  doc: '<path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z"/><path d="M14 3v5h5M9 13h6M9 17h6"/>',
  image: '<rect x="3" y="3" width="18" height="18" rx="2"/><circle cx="9" cy="9" r="2"/><path d="m21 15-5-5L5 21"/>',
  code: '<path d="m16 18 6-6-6-6M8 6l-6 6 6 6"/>',
  upload: '<path d="M12 16V4M6 10l6-6 6 6M4 20h16"/>',
  plus: '<path d="M12 5v14M5 12h14"/>',
  share:
    '<circle cx="18" cy="5" r="3"/><circle cx="6" cy="12" r="3"/><circle cx="18" cy="19" r="3"/><path d="m8.6 13.5 6.8 4M15.4 6.5l-6.8 4"/>',
  globe: '<circle cx="12" cy="12" r="9"/><path d="M3 12h18M12 3a14 14 0 0 1 0 18M12 3a14 14 0 0 0 0 18"/>',
  users:
    '<circle cx="9" cy="8" r="3.5"/><path d="M2.5 20a6.5 6.5 0 0 1 13 0M16 4.5a3.5 3.5 0 0 1 0 7M18 14a6 6 0 0 1 3.5 6"/>',
  search: '<circle cx="11" cy="11" r="7"/><path d="m20 20-4-4"/>',
  trash: '<path d="M3 6h18M8 6V4h8v2M6 6l1 14h10l1-14"/>',
  history: '<path d="M3 12a9 9 0 1 0 3-6.7L3 8"/><path d="M3 3v5h5M12 7v5l3 2"/>',
  download: '<path d="M12 4v12M6 10l6 6 6-6M4 20h16"/>',
  drive: '<path d="M4 15h16l-2-9H6z"/><path d="M4 15v4h16v-4"/><path d="M8 17h.01"/>',
  lock: '<rect x="5" y="11" width="14" height="10" rx="2"/><path d="M8 11V7a4 4 0 0 1 8 0v4"/>',
  more: '<circle cx="5" cy="12" r="1"/><circle cx="12" cy="12" r="1"/><circle cx="19" cy="12" r="1"/>',
} as const;

export type IconName = keyof typeof PATHS;

export function icon(name: IconName, cls = ''): Html {
  return new Html(
    `<svg class="icon${cls ? ` ${cls}` : ''}" viewBox="0 0 24 24" aria-hidden="true" focusable="false">${PATHS[name]}</svg>`,
  );
}

/** The icon of a file by its content type and name. */
export function fileIcon(contentType: string, path: string): Html {
  const t = contentType.split(';')[0].toLowerCase();
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  if (t.startsWith('image/')) return icon('image', 'file-icon');
  if (t === 'text/markdown' || ext === 'md' || t === 'application/pdf' || ext === 'txt')
    return icon('doc', 'file-icon');
  if (/^(js|ts|py|go|rs|java|c|cpp|h|rb|sh|json|yaml|yml|toml|sql|css|html)$/.test(ext))
    return icon('code', 'file-icon');
  return icon('file', 'file-icon');
}
