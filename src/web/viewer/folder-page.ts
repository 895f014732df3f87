import type { Response } from 'express';
import type { ArtifactRow } from '../../records/artifact-records.js';
import { html, sendPage, type Html } from '../html.js';

/**
 * A folder's page: its direct subfolders and files, grouped from the live artifacts below it.
 * `base` is the URL of the folder (ending in `/`); `prefix` the folder's path in the drive plus `/`.
 */
export function sendFolderPage(
  res: Response,
  title: string,
  items: ArtifactRow[],
  base: string,
  prefix: string,
  nav: Html,
  extra?: Html,
): void {
  const folders = new Map<string, number>();
  const files: ArtifactRow[] = [];
  for (const a of items) {
    const rest = a.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash >= 0) folders.set(rest.slice(0, slash), (folders.get(rest.slice(0, slash)) ?? 0) + 1);
    else files.push(a);
  }
  const enc = (s: string) => s.split('/').map(encodeURIComponent).join('/');
  const rows = [
    ...[...folders].map(
      ([name, n]) =>
        html`<tr>
          <td>📁 <a href="${base}${enc(name)}/">${name}/</a></td>
          <td class="muted">${n} file${n === 1 ? '' : 's'}</td>
          <td></td>
          <td></td>
        </tr>`,
    ),
    ...files.map((a) => {
      const name = a.path.slice(prefix.length);
      return html`<tr>
        <td><a href="${base}${enc(name)}">${name}</a></td>
        <td class="muted">${a.content_type}</td>
        <td class="muted">v${a.version_number}</td>
        <td class="muted">${Number(a.size_bytes)} B</td>
      </tr>`;
    }),
  ];
  sendPage(
    res,
    title,
    html`${extra ?? ''}
      <table data-testid="folder-listing">
        <thead>
          <tr>
            <th>Name</th>
            <th>Type</th>
            <th>Version</th>
            <th>Size</th>
          </tr>
        </thead>
        <tbody>
          ${
            rows.length
              ? rows
              : html`<tr>
                  <td colspan="4" class="muted">Empty.</td>
                </tr>`
          }
        </tbody>
      </table>`,
    200,
    { wide: true, nav },
  );
}
