import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../src/files/events.js';
import { activityLines } from '../../src/web/activity.js';

/** Issue 41: recent activity as sentences, the events of one compile job folded into one line (its latest state). */
const event = (action: string, metadata: Record<string, unknown>, n: number): EventRow => ({
  seq: String(n),
  id: `evt_${n}`,
  drive_id: 'drv_x',
  art_id: action.startsWith('artifact.') ? 'art_1' : null,
  fld_id: action.startsWith('job.') ? 'fld_1' : null,
  action,
  run_id: null,
  credential_kind: null,
  actor_name: null,
  metadata,
  created_at: new Date(Date.UTC(2026, 10, 27, 12, 0, 60 - n)),
});

describe('activity lines', () => {
  it('reads as sentences and folds a compile job into one line', () => {
    const job = { job_id: 'job_1', path: 'papers/paper' };
    const newestFirst = [
      event('job.succeeded', job, 1),
      event('job.running', job, 2),
      event('artifact.renamed', { from: 'a.md', to: 'b.md', path: 'b.md' }, 3),
      event('job.queued', job, 4),
      event('artifact.created', { path: 'a.md' }, 5),
    ];
    const text = activityLines('drv_x', newestFirst).map((l) => l.sentence.value.replace(/<[^>]+>/g, ''));
    expect(text).toEqual(['Compiled paper', 'Renamed a.md → b.md', 'Created a.md']);
  });
});
