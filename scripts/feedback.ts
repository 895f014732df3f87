import { loadConfig } from '../src/lib/config.js';
import { closeContext, createContext } from '../src/platform/context.js';
import { AppError } from '../src/lib/errors.js';
import {
  FEEDBACK_STATUSES,
  listFeedbackForOperators,
  transitionFeedback,
  type FeedbackStatus,
} from '../src/feedback/feedback.js';

/**
 * The operators' door to feedback tickets (never reachable with a drive credential):
 *   npm run feedback -- list [status]
 *   npm run feedback -- transition <fbk_id> <status> [note]
 * It needs the service's own DATABASE_URL/TEMPORAL_ADDRESS/S3_ENDPOINT (the production settings).
 */
const [cmd, ...args] = process.argv.slice(2);
const isStatus = (s: string | undefined): s is FeedbackStatus =>
  (FEEDBACK_STATUSES as readonly string[]).includes(s ?? '');
const operator = process.env.FEEDBACK_OPERATOR ?? process.env.USER ?? 'operator';

const ctx = await createContext(loadConfig(), 'feedback-cli');
let code = 0;
try {
  if (cmd === 'list') {
    if (args[0] !== undefined && !isStatus(args[0]))
      throw new Error(`status must be one of ${FEEDBACK_STATUSES.join(', ')}`);
    for (const t of await listFeedbackForOperators(ctx, {
      status: args[0] as FeedbackStatus | undefined,
      limit: 200,
    })) {
      console.log([t.id, t.status, t.drive_id, t.kind, JSON.stringify(t.title)].join('\t'));
    }
  } else if (cmd === 'transition' && args[0] && isStatus(args[1])) {
    const r = await transitionFeedback(ctx, { fbkId: args[0], to: args[1], operator, note: args[2] });
    console.log(JSON.stringify({ fbk_id: r.ticket.id, status: r.ticket.status, changed: r.changed }));
  } else {
    console.error(
      `usage: feedback list [status] | feedback transition <fbk_id> <${FEEDBACK_STATUSES.join('|')}> [note]`,
    );
    code = 2;
  }
} catch (err) {
  console.error(err instanceof AppError ? JSON.stringify({ code: err.code, message: err.message, ...err.extra }) : err);
  code = 1;
} finally {
  await closeContext(ctx);
}
process.exit(code);
