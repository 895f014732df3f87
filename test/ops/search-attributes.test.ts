import type { WorkflowExecutionInfo } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { driveClient, type DriveClient } from '../artifacts/client.js';
import { makeProject } from '../projects/helpers.js';
import { randomIp, registerAnonymous } from '../identity/helpers.js';
import { ensureSearchAttributes, SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes.js';
import { until } from './prom.js';

/**
 * Issue 42: every workflow the service starts carries DriveId (and JobId, ProjectId, …) and a memo, so the Temporal
 * UI's query `DriveId = "drv_…"` lists that drive's work and nothing else. Visibility is eventually consistent, so
 * the queries poll within a bound.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => api?.close());

async function list(query: string): Promise<WorkflowExecutionInfo[]> {
  const out: WorkflowExecutionInfo[] = [];
  for await (const w of api.ctx.temporal.workflow.list({ query })) out.push(w);
  return out;
}

async function compileOnce(d: DriveClient): Promise<string> {
  const fld = await makeProject(d, 'sa', { 'main.typ': '= Quoll\n' });
  await d.call('PUT', `/v0/projects/${fld}`, { json: { entrypoint: 'main.typ' } });
  const job = await d.call('POST', `/v0/projects/${fld}/jobs`, { json: {} });
  expect(job.status).toBe(200);
  return job.json.job_id as string;
}

describe('search attributes on the workflows the service starts', () => {
  it('the namespace has them registered (the dev server flags); the boot check is idempotent', async () => {
    const { customAttributes } = await api.ctx.temporal.connection.operatorService.listSearchAttributes({
      namespace: api.ctx.config.temporal.namespace,
    });
    expect(Object.keys(customAttributes ?? {})).toEqual(expect.arrayContaining(Object.keys(SEARCH_ATTRIBUTES)));
    // The worker's boot check adds nothing to a namespace that has them (every worker runs it at start).
    expect(await ensureSearchAttributes(api.ctx.temporal, api.ctx.config.temporal.namespace)).toEqual([]);
  });

  it('DriveId = "<drive>" lists that drive\'s workflows and not another\'s; JobId finds the job', async () => {
    const [a, b] = [await driveClient(api), await driveClient(api)];
    const [jobA, jobB] = [await compileOnce(a), await compileOnce(b)];

    const ofA = await until(
      `DriveId = ${a.driveId}`,
      () => list(`DriveId = "${a.driveId}"`),
      (ws) => ws.some((w) => w.workflowId === `compile-${jobA}`),
    );
    expect(ofA.map((w) => w.workflowId)).not.toContain(`compile-${jobB}`);
    for (const w of ofA)
      expect(w.typedSearchAttributes.getAll().find((p) => p.key.name === 'DriveId')?.value).toBe(a.driveId);
    const compileOfA = ofA.find((w) => w.workflowId === `compile-${jobA}`)!;
    expect(compileOfA.type).toBe('compileWorkflow');
    expect(compileOfA.memo).toEqual({ purpose: expect.stringMatching(/^compile job/) });

    const byJob = await until(
      `JobId = ${jobB}`,
      () => list(`JobId = "${jobB}" AND WorkflowType = "compileWorkflow"`),
      (ws) => ws.length > 0,
    );
    expect(byJob.map((w) => w.workflowId)).toEqual([`compile-${jobB}`]);
  }, 180_000);

  it("an anonymous agent's drive lifecycle workflow is found by its DriveId", async () => {
    const reg = await registerAnonymous(api, { 'x-forwarded-for': randomIp() });
    const found = await until(
      `DriveId = ${reg.drive_id}`,
      () => list(`DriveId = "${reg.drive_id}"`),
      (ws) => ws.length > 0,
    );
    expect(found.map((w) => w.workflowId)).toEqual([`unclaimed-drive-${reg.drive_id}`]);
    expect(found[0]!.memo?.purpose).toMatch(/unclaimed drive/);
  });

  it('drainers carry their topic', async () => {
    const drainers = await until(
      'OutboxTopic = search',
      () => list(`OutboxTopic = "search" AND ExecutionStatus = "Running"`),
      (ws) => ws.length > 0,
    );
    for (const w of drainers) expect(w.workflowId).toMatch(/^outbox-search-\d+$/);
  });
});
