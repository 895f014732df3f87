import type { VersionRow } from '../files/versions.js';
import { iso } from '../lib/time.js';

/** The public version shape (REFERENCE VersionOut). */
export function versionOut(v: VersionRow) {
  return {
    art_id: v.art_id,
    version_number: v.version_number,
    size_bytes: Number(v.size_bytes),
    hash: v.hash,
    content_type: v.content_type,
    actor_name: v.actor_name,
    change_summary: v.change_summary,
    created_at: iso(v.created_at),
  };
}
