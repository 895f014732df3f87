/**
 * The out-of-the-box find (issue 53), against a running `npm start` (scripts/fresh-clone.sh): an anonymous agent
 * drive PUTs "we keep customer invoices for seven years", and `find "how long do we store bills"` must answer it first
 * (no shared word: the embedded model's semantic leg). Waits up to FIRST_FIND_TIMEOUT_S (default 180) for indexing.
 * Usage: node --import tsx scripts/first-find.ts http://127.0.0.1:8080
 */
const base = process.argv[2] ?? 'http://127.0.0.1:8080';
const deadline = Date.now() + Number(process.env.FIRST_FIND_TIMEOUT_S ?? 180) * 1000;

async function json(res: Response) {
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${res.url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

const identity = await json(
  await fetch(`${base}/agent/identity`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'anonymous' }),
  }),
);
const token = await json(
  await fetch(`${base}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: String(identity.identity_assertion),
    }),
  }),
);
const auth = { authorization: `Bearer ${String(token.access_token)}` };
const put = await json(
  await fetch(`${base}/v0/artifacts/policies/retention.md`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'text/markdown' },
    body: 'We keep customer invoices for seven years.',
  }),
);
const started = Date.now();
for (;;) {
  const page = await json(
    await fetch(`${base}/v0/find?q=${encodeURIComponent('how long do we store bills')}`, { headers: auth }),
  );
  const items = page.items as { art_id: string; path: string }[];
  const semantic = page.semantic as { status: string } | undefined;
  if (items[0]?.art_id === put.art_id && semantic?.status === 'ok') {
    console.log(
      `[first-find] find "how long do we store bills" answered ${items[0].path} first, ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s after the PUT (semantic ${semantic.status})`,
    );
    break;
  }
  if (Date.now() > deadline) {
    console.error(`[first-find] FAIL: find answered ${JSON.stringify(page).slice(0, 600)}`);
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 1000));
}
