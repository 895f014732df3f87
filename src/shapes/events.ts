import type { EventRow } from '../files/events.js';
import { iso } from '../lib/time.js';

/** The public event shape (spec 2.7; fields in docs/decisions.md, Events). */
export function eventOut(r: EventRow) {
  return {
    id: r.id,
    seq: Number(r.seq),
    drive_id: r.drive_id,
    art_id: r.art_id,
    fld_id: r.fld_id,
    action: r.action,
    actor_name: r.actor_name,
    metadata: r.metadata,
    created_at: iso(r.created_at)!,
    run_id: r.run_id ?? null,
  };
}
