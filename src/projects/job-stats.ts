import type { Sql } from '../db/pool.js';

/** Open compile jobs for the metrics endpoint (docs/operations.md): how many per state and the oldest one's age. */
export interface OpenJobGauge {
  state: 'queued' | 'running';
  jobs: number;
  oldest_s: number;
}

/** Read through the open-jobs partial index (compile_jobs_drive_open_idx): bounded by the per-drive caps. */
export async function openJobGauges(db: Sql): Promise<OpenJobGauge[]> {
  const { rows } = await db.query<OpenJobGauge>(
    `select s.state, count(j.id)::int as jobs,
            coalesce(extract(epoch from now() - min(j.created_at)), 0)::float8 as oldest_s
       from unnest(array['queued', 'running']) as s(state)
       left join compile_jobs j on j.status = s.state and j.status in ('queued', 'running')
      group by s.state order by s.state`,
  );
  return rows;
}
