import { createHash } from 'node:crypto';
import type { DriveClient } from '../artifacts/client.js';

/** Path → sha256 of the bytes, for the drive now or as of a seq (listing and downloads both through the API). */
export async function driveState(d: DriveClient, asOf?: number): Promise<Record<string, string>> {
  const q = asOf === undefined ? '' : `&as_of=${asOf}`;
  const out: Record<string, string> = {};
  let cursor: string | null = null;
  do {
    const page = await d.call(
      'GET',
      `/v0/artifacts?limit=100${q}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (page.status !== 200) throw new Error(`listing ${page.status}: ${JSON.stringify(page.json)}`);
    for (const a of page.json.items as { art_id: string; path: string }[]) {
      const bytes = await d.call(
        'GET',
        `/v0/artifacts/${a.art_id}/download${asOf === undefined ? '' : `?as_of=${asOf}`}`,
      );
      if (bytes.status !== 200) throw new Error(`download ${a.path} ${bytes.status}`);
      out[a.path] = createHash('sha256').update(bytes.bytes).digest('hex');
    }
    cursor = page.json.next_cursor;
  } while (cursor);
  return out;
}

export const headSeq = async (d: DriveClient): Promise<number> => {
  const items = await d.events('?limit=1');
  return items.length ? items[0].seq : 0;
};

export const runHeader = (runId: string) => ({ 'x-drive-run-id': runId });
