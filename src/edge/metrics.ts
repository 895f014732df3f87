import { Gauge } from 'prom-client';
import { webhookGauges } from '../feed/webhook-stats.js';
import { artifactTopics, outboxLag } from '../outbox/outbox.js';
import type { AppContext } from '../platform/context.js';
import { contextRegistry, METRICS_CONTENT_TYPE, renderMetrics } from '../platform/metrics.js';
import { openJobGauges } from '../projects/job-stats.js';
import { graphGauges } from '../search/semantic-graph-store.js';
import { withTimeout } from './readiness.js';

/**
 * The API's `GET /metrics` (operators only): the process's instruments (src/platform/metrics.ts: requests, latency,
 * event streams, the pool) and the gauges only the database knows, read at each scrape by one bounded query per
 * collector (outbox lag and depth per topic, webhook backlog and failing webhooks, open compile jobs, semantic
 * graphs). Any API process answers the same database-backed values; alert on them with max(), not sum().
 * A collector whose read fails or takes over 2 s reports `drive_metrics_collector_up{collector} 0`, the rest stands.
 */
export interface ApiMetrics {
  contentType: string;
  render(): Promise<string>;
}

/** One database-backed collector: a bounded read, and which gauge each field of its rows sets (labelled by `label`). */
interface Collector {
  read(app: AppContext): Promise<object[]>;
  label?: string;
  gauges: Record<string, [name: string, help: string]>;
}

const COLLECTORS: Record<string, Collector> = {
  outbox: {
    read: (app) => outboxLag(app.pool, artifactTopics(app.config)),
    label: 'topic',
    gauges: {
      depth: ['drive_outbox_depth', 'Outbox requests waiting, by topic (search: the indexing backlog)'],
      oldest_s: [
        'drive_outbox_oldest_seconds',
        'Age of the oldest waiting outbox request by topic, 0 when none waits (the outbox lag)',
      ],
      retrying: ['drive_outbox_retrying', 'Outbox requests backing off after a failure, by topic'],
    },
  },
  webhooks: {
    read: async (app) => [await webhookGauges(app.pool)],
    gauges: {
      backlog: ['drive_webhook_backlog', "Webhook deliveries due now for active webhooks (the drainers' work)"],
      overdue_s: [
        'drive_webhook_overdue_seconds',
        'How long the most overdue due delivery has waited since it became due, 0 if none (the delivery lag)',
      ],
      waiting: [
        'drive_webhook_waiting',
        'Deliveries for active webhooks waiting out a retry backoff or the hourly budget',
      ],
      held: ['drive_webhook_held', 'Deliveries held for failing webhooks (they wait for a replay)'],
      failing: ['drive_webhooks_failing', 'Live webhooks marked failing'],
    },
  },
  compile: {
    read: (app) => openJobGauges(app.pool),
    label: 'state',
    gauges: {
      jobs: ['drive_compile_jobs_open', 'Compile jobs queued or running, by state'],
      oldest_s: ['drive_compile_jobs_oldest_seconds', 'Age of the oldest open compile job by state, 0 if none'],
    },
  },
  graphs: {
    read: async (app) => [await graphGauges(app.pool)],
    gauges: {
      graphs: ['drive_semantic_graphs', 'Drives whose semantic search has a graph index'],
      oldest_s: ['drive_semantic_graph_oldest_seconds', 'Age of the oldest semantic graph, 0 if none'],
    },
  },
};

export function apiMetrics(app: AppContext): ApiMetrics {
  const registry = contextRegistry(app.pool);
  const up = new Gauge({
    name: 'drive_metrics_collector_up',
    help: "1 when the collector's database read succeeded at this scrape",
    labelNames: ['collector'],
    registers: [registry],
  });
  const collectors = Object.entries(COLLECTORS).map(([name, c]) => {
    const gauges = Object.entries(c.gauges).map(
      ([field, [gaugeName, help]]) =>
        [
          field,
          new Gauge({ name: gaugeName, help, labelNames: c.label ? [c.label] : [], registers: [registry] }),
        ] as const,
    );
    return async () => {
      try {
        for (const row of (await withTimeout(c.read(app))) as Record<string, unknown>[])
          for (const [field, gauge] of gauges)
            gauge.set(c.label ? { [c.label]: String(row[c.label]) } : {}, Number(row[field]));
        up.set({ collector: name }, 1);
      } catch (err) {
        up.set({ collector: name }, 0);
        app.logger.warn({ err, collector: name }, 'metrics: a collector failed; its gauges keep their last values');
      }
    };
  });

  return {
    contentType: METRICS_CONTENT_TYPE,
    async render() {
      await Promise.all(collectors.map((collect) => collect()));
      return renderMetrics(registry);
    },
  };
}
