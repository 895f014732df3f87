import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes.js';
import { scrapeWorker, until } from './prom.js';

/**
 * Issue 42: the sample alert rules and the Grafana dashboard in ops/ load (YAML and JSON, the shapes Prometheus and
 * Grafana read), name only metrics the service really exposes (checked against live scrapes of the API and the
 * worker) and point at sections docs/operations.md has; docker-compose registers the same search attributes.
 */
const OPS_TOKEN = 'ops-token-for-the-ops-files-suite-0123456789';
let api: TestApi;
let exposed: Set<string>;
beforeAll(async () => {
  api = await startTestApi({ OPS_TOKEN });
  const texts = await Promise.all([
    fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${OPS_TOKEN}` } }).then((r) => r.text()),
    // The SDK's activity series appear once the worker ran an activity (its drainers start at boot).
    until('an activity ran', scrapeWorker, (t) => t.includes('temporal_activity_schedule_to_start_latency')),
  ]);
  // Every family a scrape names, histograms and summaries by their base name too.
  exposed = new Set(
    texts.flatMap((t) =>
      [...t.matchAll(/^(?:# (?:HELP|TYPE) )?([a-zA-Z_:][\w:]*)/gm)].map((m) =>
        m[1]!.replace(/_(bucket|count|sum)$/, ''),
      ),
    ),
  );
});
afterAll(async () => api?.close());

const read = (p: string) => readFileSync(p, 'utf8');
/** The service's metric names an expression uses (Prometheus' own, like `up`, are not checked). */
const metricsIn = (expr: string) =>
  [...expr.matchAll(/\b((?:drive|temporal|process)_[a-z0-9_]+)\b/g)].map((m) =>
    m[1]!.replace(/_(bucket|count|sum)$/, ''),
  );
/** GitHub's anchor for a heading. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
const runbookAnchors = new Set(
  [...read('docs/operations.md').matchAll(/^#{2,4} (.+)$/gm)].map((m) => `docs/operations.md#${anchor(m[1]!)}`),
);

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; runbook: string };
}

describe('ops/prometheus/agent-drive-alerts.yml', () => {
  const doc = parse(read('ops/prometheus/agent-drive-alerts.yml')) as { groups: { name: string; rules: Rule[] }[] };
  const rules = doc.groups.flatMap((g) => g.rules);

  it('is a rule file: groups of named rules, each with an expression, a severity, a summary and a runbook link', () => {
    expect(doc.groups.length).toBeGreaterThan(0);
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
    for (const r of rules) {
      expect(r.alert).toMatch(/^Drive[A-Z]\w+$/);
      expect(r.expr.trim()).not.toBe('');
      if (r.for !== undefined) expect(r.for).toMatch(/^\d+[smh]$/);
      expect(['info', 'warning', 'critical']).toContain(r.labels.severity);
      expect(r.annotations.summary).not.toBe('');
      expect(runbookAnchors, `${r.alert}: ${r.annotations.runbook}`).toContain(r.annotations.runbook);
    }
  });

  it('names only metrics the API or the worker exposes', () => {
    const names = rules.flatMap((r) => metricsIn(r.expr));
    expect(names.length).toBeGreaterThan(10);
    for (const n of names) expect(exposed, n).toContain(n);
  });
});

describe('ops/grafana/agent-drive.json', () => {
  const dash = JSON.parse(read('ops/grafana/agent-drive.json')) as {
    title: string;
    uid: string;
    panels: { type: string; title: string; gridPos: object; targets?: { expr: string; refId: string }[] }[];
  };

  it('is a dashboard: titled, with a uid and panels laid out on the grid, each graph with queries', () => {
    expect(dash.title).toBe('Agent Artifact Drive');
    expect(dash.uid).toMatch(/^[\w-]{1,40}$/);
    const graphs = dash.panels.filter((p) => p.type !== 'row');
    expect(graphs.length).toBeGreaterThan(10);
    for (const p of graphs) {
      expect(p.gridPos).toMatchObject({ h: expect.any(Number), w: expect.any(Number), x: expect.any(Number) });
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
    }
  });

  it('names only metrics the API or the worker exposes', () => {
    const names = dash.panels.flatMap((p) => (p.targets ?? []).flatMap((t) => metricsIn(t.expr)));
    for (const n of names) expect(exposed, n).toContain(n);
  });
});

describe('docker-compose.yml', () => {
  it('registers the search attributes the service sets', () => {
    const compose = parse(read('docker-compose.yml')) as { services: Record<string, { command?: string[] }> };
    const script = compose.services['temporal-namespace']!.command!.join('\n');
    const listed = /for sa in ([\w ]+); do/.exec(script)?.[1]?.split(' ');
    expect(listed?.sort()).toEqual(Object.keys(SEARCH_ATTRIBUTES).sort());
  });
});
