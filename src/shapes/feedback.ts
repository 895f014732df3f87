import type { Ticket } from '../feedback/feedback.js';
import { iso } from '../lib/time.js';

/** The public feedback ticket (docs/decisions.md, Feedback). Attachments are the submit-time snapshots. */
export function feedbackOut({ ticket: t, attachments }: Ticket) {
  return {
    fbk_id: t.id,
    id: t.id,
    drive_id: t.drive_id,
    kind: t.kind,
    title: t.title,
    body: t.body,
    contact: (t.contact ?? null) as string | boolean | null,
    status: t.status,
    attachments: attachments.map((a) => ({
      art_id: a.art_id,
      path: a.path,
      version_number: a.version_number,
      hash: a.hash,
      size_bytes: Number(a.size_bytes),
      content_type: a.content_type,
    })),
    created_at: iso(t.created_at)!,
    updated_at: iso(t.updated_at)!,
  };
}
