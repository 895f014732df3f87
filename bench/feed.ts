import http from 'node:http';
import { forEachLimited } from '../src/outbox/outbox.js';
import { notYetIndexed, percentile, putText, startBenchStack, type BenchStack } from './bench-stack.js';
import { openSse } from '../test/feed/sse-client.js';
import { startReceiver } from '../test/feed/receiver.js';

/**
 * `npm run bench:feed`: the change feed under a burst, through the API and worker processes.
 *
 * 1. Baseline: BENCH_FEED_N (1,000) PUTs from 4 clients on a drive with no subscriber.
 * 2. Subscribed: the same burst on a drive with one webhook (a receiver on 127.0.0.1) and one SSE
 *    stream open. For each event, commit-to-delivery = arrival at the stream / the receiver minus the
 *    event's `created_at` (PostgreSQL's clock at insert, on this machine; the commit follows within
 *    the same transaction's last statement). Counts lost events and arrivals out of seq order.
 * 3. The baseline again (the two baselines bracket the subscribed run; their mean is the reference).
 * Between phases the bench waits until the worker has indexed the previous phase's notes.
 * Prints p50/p95/max per channel (goals: p50 < 1 s, p95 < 3 s, 0 lost, 0 out of order) and the added
 * cost per write: burst time per write and PUT p50, subscribed vs baseline.
 */
const BASE = Number(process.env.BENCH_PORT_BASE ?? 19940);
const N = Number(process.env.BENCH_FEED_N ?? 1000);
const CLIENTS = 4;
const DELIVERY_TIMEOUT_MS = 300_000;

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

interface Burst {
  seconds: number;
  putLatencies: number[];
}

/** Waits until the worker has indexed a drive's notes, so one phase's indexing does not load the next phase. */
async function indexed(stack: BenchStack, driveId: string) {
  await until(async () => (await notYetIndexed(stack.admin, driveId)) === 0, stack, 'indexing');
}

async function burst(stack: BenchStack, key: string, tag: string): Promise<Burst> {
  const headers = { authorization: `Bearer ${key}` };
  const putLatencies: number[] = [];
  const started = performance.now();
  await forEachLimited(
    Array.from({ length: N }, (_, i) => i),
    CLIENTS,
    async (i) => {
      const sent = performance.now();
      const done = await putText(agent, `${stack.url}/v0/artifacts/${tag}/${i}.md`, headers, `# ${tag} ${i}\n`);
      putLatencies.push(done - sent);
    },
  );
  return { seconds: (performance.now() - started) / 1000, putLatencies };
}

interface Channel {
  name: string;
  arrivals: { seq: number; delayMs: number }[];
}

function report(c: Channel, expected: number) {
  const seqs = c.arrivals.map((a) => a.seq);
  const unique = new Set(seqs);
  let outOfOrder = 0;
  for (let i = 1; i < seqs.length; i++) if (seqs[i]! <= seqs[i - 1]!) outOfOrder++;
  const delays = c.arrivals.map((a) => a.delayMs);
  const p50 = percentile(delays, 50);
  const p95 = percentile(delays, 95);
  const lost = expected - unique.size;
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  console.log(
    `  ${c.name.padEnd(8)} p50 ${ms(p50)}   p95 ${ms(p95)}   max ${ms(Math.max(...delays))}   ` +
      `lost ${lost}   out of order ${outOfOrder}   repeats ${seqs.length - unique.size}   ` +
      `goals met: ${p50 < 1000 && p95 < 3000 && !lost && !outOfOrder ? 'yes' : 'NO'}`,
  );
}

async function until(done: () => boolean | Promise<boolean>, stack: BenchStack, what: string) {
  const deadline = performance.now() + DELIVERY_TIMEOUT_MS;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`${what}: not complete within ${DELIVERY_TIMEOUT_MS} ms`);
    stack.alive();
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main() {
  const stack = await startBenchStack({
    base: BASE,
    dataDir: '.data/bench-feed',
    worker: true,
    // The receiver is plain http on 127.0.0.1: loopback allowed, https not required (development mode).
    env: { NODE_ENV: 'development', WEBHOOK_ALLOW_LOOPBACK: 'true' },
  });
  const receiver = await startReceiver();
  try {
    // Warm-up: the first writes pay for connections and prepared statements.
    const warm = await stack.driveWithKey();
    await burst(stack, warm.key, 'warm');
    await indexed(stack, warm.driveId);

    const first = await stack.driveWithKey();
    const base1 = await burst(stack, first.key, 'base');
    await indexed(stack, first.driveId);

    const sub = await stack.driveWithKey();
    const auth = { authorization: `Bearer ${sub.key}` };
    const hook = await fetch(`${stack.url}/v0/webhooks`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url }),
    });
    if (hook.status !== 201) throw new Error(`webhook create answered ${hook.status}: ${await hook.text()}`);
    const sse = await openSse(`${stack.url}/v0/events/stream`, auth);
    await sse.waitForComment(/^connected$/);
    const delay = (createdAt: string) => Date.now() - Date.parse(createdAt);
    const streamed: Channel = { name: 'SSE', arrivals: [] };
    const hooked: Channel = { name: 'webhook', arrivals: [] };
    sse.onMessage = (m) => streamed.arrivals.push({ seq: Number(m.id), delayMs: delay(m.data.created_at) });
    receiver.answer = (r) => {
      hooked.arrivals.push({ seq: r.body.seq, delayMs: delay(r.body.created_at) });
      return 200;
    };
    const subscribed = await burst(stack, sub.key, 'sub');
    await until(() => new Set(streamed.arrivals.map((a) => a.seq)).size >= N, stack, 'SSE');
    await until(() => new Set(hooked.arrivals.map((a) => a.seq)).size >= N, stack, 'webhook');
    sse.close();
    await indexed(stack, sub.driveId);

    const base2 = await burst(stack, (await stack.driveWithKey()).key, 'base2');

    const perWrite = (b: Burst) => (b.seconds * 1000) / N;
    const baseline = (perWrite(base1) + perWrite(base2)) / 2;
    const basePut = (percentile(base1.putLatencies, 50) + percentile(base2.putLatencies, 50)) / 2;
    console.log(`\nchange feed: a burst of ${N} PUTs from ${CLIENTS} clients, API + worker processes\n`);
    console.log('commit-to-delivery (event created_at → arrival), one SSE stream and one webhook on the drive:');
    report(streamed, N);
    report(hooked, N);
    console.log('\nadded cost per write (subscribed drive vs the mean of two baselines without subscribers):');
    console.log(
      `  burst time per write: baseline ${baseline.toFixed(2)} ms (${perWrite(base1).toFixed(2)}, ${perWrite(base2).toFixed(2)})   ` +
        `subscribed ${perWrite(subscribed).toFixed(2)} ms   ratio ${(perWrite(subscribed) / baseline).toFixed(2)}`,
    );
    console.log(
      `  PUT p50: baseline ${basePut.toFixed(1)} ms   subscribed ${percentile(subscribed.putLatencies, 50).toFixed(1)} ms   ` +
        `ratio ${(percentile(subscribed.putLatencies, 50) / basePut).toFixed(2)}`,
    );
  } finally {
    agent.destroy();
    await receiver.close();
    await stack.stop();
  }
}

await main();
