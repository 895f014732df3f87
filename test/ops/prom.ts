/** Reading the Prometheus text format in tests: the series of a metric, filtered by labels. */
export interface Series {
  labels: Record<string, string>;
  value: number;
}

export function series(text: string, name: string, where: Record<string, string> = {}): Series[] {
  const out: Series[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]),
    );
    if (Object.entries(where).every(([k, v]) => labels[k] === v)) out.push({ labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of a metric's matching series (0 when there is none). */
export const total = (text: string, name: string, where: Record<string, string> = {}) =>
  series(text, name, where).reduce((s, x) => s + x.value, 0);

/** Polls until `ok` holds, at most `ms`; fails with what was last seen. */
export async function until<T>(
  what: string,
  ask: () => Promise<T>,
  ok: (v: T) => boolean,
  ms = 60_000,
  show: (v: T) => unknown = () => '',
): Promise<T> {
  const end = Date.now() + ms;
  let last = await ask();
  while (!ok(last)) {
    if (Date.now() > end) throw new Error(`${what}: not reached within ${ms} ms ${JSON.stringify(show(last))}`);
    await new Promise((r) => setTimeout(r, 250));
    last = await ask();
  }
  return last;
}

/**
 * The worker's exposition (WORKER_METRICS_PORT of the test stack). The global setup does not wait for the worker,
 * so a suite's first scrape may come before it listens: refused connections are retried for a minute.
 */
export async function scrapeWorker(): Promise<string> {
  const url = `http://127.0.0.1:${process.env.WORKER_METRICS_PORT}/metrics`;
  const text = await until(
    'the worker metrics endpoint',
    () =>
      fetch(url).then(
        (r) => (r.ok ? r.text() : ''),
        () => '',
      ),
    (t) => t !== '',
  );
  return text;
}
