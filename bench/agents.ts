import { callJson, timed } from './bench-http.js';
import { percentile, startBenchStack, type BenchStack } from './bench-stack.js';

/**
 * `npm run bench:agents` (issue 56): BENCH_AGENTS (8) agents edit BENCH_AGENTS_FILES (50) shared text files for
 * BENCH_AGENTS_SECONDS (60) per mode, through the API process. An edit reads a file, appends a unique tag to one of its
 * lines and writes it back:
 * - `blind`, the baseline: a plain PUT of what was read (last writer wins), to show lost updates are counted;
 * - `leases`: an exclusive lease on the file first (`POST /v0/leases`), the PUT carries its fence (`X-Drive-Fence`),
 *   every fifth edit renews the lease before writing, and the lease is released after;
 * - `merge`: the PUT carries `If-Match: <version read>` and `X-Drive-Merge: three-way`; a 409 MERGE_CONFLICT (two
 *   agents tagged the same line) is a refused write and the agent reads again.
 * At the end every tag a write was told had landed (200) must be in its file: the rest are lost updates.
 * Prints per mode: edits landed, lost updates, refused writes (423/409/412 by code), write p50/p95, and lease
 * acquire/renew p50/p95.
 */
const BASE = Number(process.env.BENCH_PORT_BASE ?? 21960);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 8);
const FILES = Number(process.env.BENCH_AGENTS_FILES ?? 50);
const SECONDS = Number(process.env.BENCH_AGENTS_SECONDS ?? 60);
const LINES = 40;
const MODES = (process.env.BENCH_AGENTS_MODES ?? 'blind,leases,merge').split(',') as Mode[];
type Mode = 'blind' | 'leases' | 'merge';

interface Tally {
  landed: Map<string, string[]>;
  refused: Map<string, number>;
  writeMs: number[];
  acquireMs: number[];
  renewMs: number[];
}

const fileName = (mode: Mode, i: number) => `agents/${mode}/f${String(i).padStart(2, '0')}.txt`;
const initial = (i: number) => Array.from({ length: LINES }, (_, l) => `file ${i} line ${l}:`).join('\n') + '\n';

/** The current version number and its bytes, read as one pair (the version's own download). */
async function readVersion(stack: BenchStack, key: string, path: string) {
  const meta = await callJson(stack.url, key, 'GET', `/v0/artifacts/${path}/meta`);
  if (meta.status !== 200) throw new Error(`meta ${path} answered ${meta.status}`);
  const artId = String(meta.json.art_id);
  const version = Number(meta.json.version_number);
  const body = await fetch(`${stack.url}/v0/artifacts/${artId}/versions/${version}/download`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (body.status !== 200) throw new Error(`download ${path}@${version} answered ${body.status}`);
  return { version, content: await body.text() };
}

async function put(stack: BenchStack, key: string, path: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`${stack.url}/v0/artifacts/${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain', ...headers },
    body,
  });
  const json = (await res.json()) as { error?: { code?: string } };
  return { status: res.status, code: json.error?.code };
}

const tagged = (content: string, line: number, tag: string) => {
  const lines = content.split('\n');
  lines[line] = `${lines[line]} ${tag}`;
  return lines.join('\n');
};

function refuse(t: Tally, why: string) {
  t.refused.set(why, (t.refused.get(why) ?? 0) + 1);
}

async function agent(stack: BenchStack, key: string, mode: Mode, n: number, until: number, t: Tally) {
  for (let edit = 0; Date.now() < until; edit++) {
    const file = Math.floor(Math.random() * FILES);
    const path = fileName(mode, file);
    const tag = `a${n}e${edit}`;
    const line = Math.floor(Math.random() * LINES);
    const headers: Record<string, string> = {};
    let leaseId: string | undefined;
    if (mode === 'leases') {
      const [lease, ms] = await timed(() =>
        callJson(stack.url, key, 'POST', '/v0/leases', { paths: [path], mode: 'exclusive', ttl_s: 10 }),
      );
      t.acquireMs.push(ms);
      if (lease.status !== 201) {
        refuse(t, `lease ${lease.status}`);
        continue;
      }
      leaseId = String(lease.json.lease_id);
      headers['x-drive-fence'] = String(lease.json.fence);
    }
    try {
      const read = await readVersion(stack, key, path);
      if (mode === 'merge') Object.assign(headers, { 'if-match': String(read.version), 'x-drive-merge': 'three-way' });
      if (leaseId && edit % 5 === 0) {
        const [renew, ms] = await timed(() =>
          callJson(stack.url, key, 'POST', `/v0/leases/${leaseId}/renew`, { ttl_s: 10 }),
        );
        t.renewMs.push(ms);
        if (renew.status !== 200) throw new Error(`renew answered ${renew.status}`);
      }
      const [written, ms] = await timed(() => put(stack, key, path, tagged(read.content, line, tag), headers));
      if (written.status === 200) {
        t.writeMs.push(ms);
        t.landed.set(path, [...(t.landed.get(path) ?? []), tag]);
      } else refuse(t, `${written.status} ${written.code ?? ''}`.trim());
    } finally {
      if (leaseId) await callJson(stack.url, key, 'DELETE', `/v0/leases/${leaseId}`);
    }
  }
}

async function runMode(stack: BenchStack, key: string, mode: Mode) {
  for (let i = 0; i < FILES; i++) {
    const r = await put(stack, key, fileName(mode, i), initial(i), {});
    if (r.status !== 200) throw new Error(`seeding ${fileName(mode, i)} answered ${r.status}`);
  }
  const t: Tally = { landed: new Map(), refused: new Map(), writeMs: [], acquireMs: [], renewMs: [] };
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(Array.from({ length: AGENTS }, (_, n) => agent(stack, key, mode, n, until, t)));
  let lost = 0;
  let landed = 0;
  for (const [path, tags] of t.landed) {
    const final = (await readVersion(stack, key, path)).content;
    landed += tags.length;
    lost += tags.filter((tag) => !new RegExp(`(^| )${tag}( |$)`, 'm').test(final)).length;
  }
  const ms = (xs: number[]) =>
    xs.length ? `p50 ${percentile(xs, 50).toFixed(1)} ms, p95 ${percentile(xs, 95).toFixed(1)} ms` : 'n/a';
  const refused = [...t.refused].map(([why, n]) => `${n}× ${why}`).join(', ') || 'none';
  console.log(`${mode}: ${landed} edits landed, ${lost} lost updates; refused: ${refused}`);
  console.log(`  write ${ms(t.writeMs)} (${(landed / SECONDS).toFixed(1)} landed edits/s)`);
  if (mode === 'leases') console.log(`  lease acquire ${ms(t.acquireMs)}; renew ${ms(t.renewMs)}`);
  return lost;
}

const stack = await startBenchStack({ base: BASE, dataDir: `.data/bench-agents-${BASE}` });
try {
  const { key } = await stack.driveWithKey();
  console.log(`${AGENTS} agents, ${FILES} files of ${LINES} lines, ${SECONDS} s per mode`);
  const lost: Record<string, number> = {};
  for (const mode of MODES) lost[mode] = await runMode(stack, key, mode);
  const guarded = MODES.filter((m) => m !== 'blind');
  if (guarded.some((m) => lost[m]! > 0)) {
    console.error(`lost updates under ${guarded.filter((m) => lost[m]! > 0).join(', ')}`);
    process.exitCode = 1;
  }
} finally {
  await stack.stop();
}
