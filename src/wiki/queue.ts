import { rows, type Db } from '../db/sql.js';
import type { OutboxOp } from './outbox-types.js';

/**
 * Queues artifacts for the wiki's outbox topic inside the caller's transaction (the switch's
 * backfill). The outbox (src/outbox) owns the table; this writes the rows its drainer claims.
 */
export async function enqueueForWiki(tx: Db, items: { driveId: string; artId: string; op: OutboxOp }[]): Promise<void> {
  if (!items.length) return;
  await rows(
    tx,
    `insert into outbox (topic, drive_id, art_id, op) select 'wiki', i.d, i.a, i.o from jsonb_to_recordset(?::jsonb) as i(d text, a text, o text)`,
    [JSON.stringify(items.map((i) => ({ d: i.driveId, a: i.artId, o: i.op })))],
  );
}
