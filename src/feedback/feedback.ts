import type { AppContext } from '../platform/context.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import type { RequestContext } from '../platform/request-context.js';
import type { Timestamp } from '../lib/time.js';
import { getLiveArtifact } from '../records/artifact-records.js';
import { pinBlob } from '../files/blobs.js';
import { one, rows, transaction } from '../db/sql.js';

/**
 * Feedback tickets (spec 4.8). A ticket belongs to the drive that filed it; another drive's ticket
 * is absent. Attachments are snapshots: each keeps the artifact's path, version and blob hash at
 * submit time, and the blob purge counts them as references (src/files/blobs.ts), so the bytes
 * survive an overwrite, a delete or a purge of the artifact. Status moves only by an operator
 * (scripts/feedback.ts), along FEEDBACK_TRANSITIONS.
 */
export const FEEDBACK_STATUSES = ['received', 'triaged', 'in_progress', 'resolved', 'declined'] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

export const FEEDBACK_TRANSITIONS: Record<FeedbackStatus, readonly FeedbackStatus[]> = {
  received: ['triaged', 'declined'],
  triaged: ['in_progress', 'resolved', 'declined'],
  in_progress: ['resolved', 'declined', 'triaged'],
  resolved: ['in_progress'],
  declined: ['triaged'],
};

export interface FeedbackRow {
  id: string;
  drive_id: string;
  kind: string;
  title: string;
  body: string;
  contact: unknown;
  status: FeedbackStatus;
  actor_name: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AttachmentRow {
  fbk_id: string;
  ord: number;
  art_id: string;
  path: string;
  version_number: number;
  hash: string;
  size_bytes: string | number;
  content_type: string;
}

export interface Ticket {
  ticket: FeedbackRow;
  attachments: AttachmentRow[];
}

export interface FeedbackInput {
  kind: string;
  title: string;
  body: string;
  contact?: string | boolean | null;
  attachments?: string[];
}

const feedbackNotFound = () => new AppError('FEEDBACK_NOT_FOUND', 'no such feedback ticket');

/** POST /v0/feedback: the ticket and its attachment snapshots in one transaction. */
export async function submitFeedback(rc: RequestContext, input: FeedbackInput): Promise<Ticket> {
  const artIds = [...new Set(input.attachments ?? [])];
  return transaction(rc.app, async (tx) => {
    const ticket = (await one<FeedbackRow>(
      tx,
      `insert into feedback_tickets (id, drive_id, kind, title, body, contact, actor_name) values (?, ?, ?, ?, ?, ?::jsonb, ?) returning *`,
      [
        newId('fbk'),
        rc.driveId,
        input.kind,
        input.title,
        input.body,
        input.contact == null ? null : JSON.stringify(input.contact),
        rc.actor,
      ],
    ))!;
    const attachments: AttachmentRow[] = [];
    for (const [ord, artId] of artIds.entries()) {
      // The artifact row lock keeps the version still under the snapshot; pinBlob touches the blob so the purge spares
      // it.
      const a = await getLiveArtifact(tx, rc.driveId, artId, true).catch((err: unknown) => {
        if (err instanceof AppError)
          throw new AppError('ARTIFACT_NOT_FOUND', `attachment ${artId} is not a live artifact of this drive`, {
            art_id: artId,
          });
        throw err;
      });
      await pinBlob(tx, a.hash);
      attachments.push(
        (await one<AttachmentRow>(
          tx,
          `insert into feedback_attachments (fbk_id, ord, art_id, path, version_number, hash, size_bytes, content_type)
         values (?, ?, ?, ?, ?, ?, ?, ?) returning *`,
          [ticket.id, ord, a.id, a.path, a.version_number, a.hash, a.size_bytes, a.content_type],
        ))!,
      );
    }
    return { ticket, attachments };
  });
}

/** GET /v0/feedback/{fbk_id}: this drive's ticket only. */
export async function getFeedback(rc: RequestContext, fbkId: string): Promise<Ticket> {
  const db = rc.app.orm.em.fork();
  const ticket = await one<FeedbackRow>(db, `select * from feedback_tickets where id = ? and drive_id = ?`, [
    fbkId,
    rc.driveId,
  ]);
  if (!ticket) throw feedbackNotFound();
  const attachments = await rows<AttachmentRow>(
    db,
    `select * from feedback_attachments where fbk_id = ? order by ord`,
    [fbkId],
  );
  return { ticket, attachments };
}

// ---- operators (scripts/feedback.ts; never reachable with a drive credential) ----

/** Tickets for triage, oldest first. */
export async function listFeedbackForOperators(
  app: AppContext,
  q: { status?: FeedbackStatus; limit: number },
): Promise<FeedbackRow[]> {
  return rows<FeedbackRow>(
    app.orm.em.fork(),
    `select * from feedback_tickets where (?::text is null or status = ?) order by created_at limit ?`,
    [q.status ?? null, q.status ?? null, q.limit],
  );
}

/**
 * Moves a ticket along FEEDBACK_TRANSITIONS. The same status again is a no-op (`changed: false`);
 * a move the table does not allow is 409 FEEDBACK_TRANSITION_INVALID with `current_status`.
 */
export async function transitionFeedback(
  app: AppContext,
  input: { fbkId: string; to: FeedbackStatus; operator: string; note?: string },
): Promise<{ ticket: FeedbackRow; changed: boolean }> {
  return transaction(app, async (tx) => {
    const current = await one<FeedbackRow>(tx, `select * from feedback_tickets where id = ? for update`, [input.fbkId]);
    if (!current) throw feedbackNotFound();
    if (current.status === input.to) return { ticket: current, changed: false };
    if (!FEEDBACK_TRANSITIONS[current.status].includes(input.to)) {
      throw new AppError('FEEDBACK_TRANSITION_INVALID', `a ${current.status} ticket cannot move to ${input.to}`, {
        current_status: current.status,
      });
    }
    const ticket = (await one<FeedbackRow>(
      tx,
      `update feedback_tickets set status = ?, updated_at = clock_timestamp() where id = ? returning *`,
      [input.to, input.fbkId],
    ))!;
    await rows(
      tx,
      `insert into feedback_transitions (fbk_id, from_status, to_status, operator, note) values (?, ?, ?, ?, ?)`,
      [input.fbkId, current.status, input.to, input.operator, input.note ?? null],
    );
    return { ticket, changed: true };
  });
}
