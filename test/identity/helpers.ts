import { expect } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { mailboxOfApi, verificationPath, type Mailbox } from '../helpers/mailbox.js';

const unescapeHtml = (v: string) =>
  v
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** An API with registration and sign-up limits high enough that suites sharing 127.0.0.1 never trip them. */
export function startIdentityApi(overrides: Record<string, string> = {}): Promise<TestApi> {
  return startTestApi({ REGISTRATIONS_PER_IP_PER_HOUR: '100000', SIGNUPS_PER_IP_PER_HOUR: '100000', ...overrides });
}

export interface Registration {
  identity_assertion: string;
  claim_token: string;
  claim_metadata: { claim_endpoint: string };
  drive_id: string;
  agent_identity_id: string;
  expires_at: string;
  scope: string;
}

export async function registerAnonymous(api: TestApi, headers: Record<string, string> = {}): Promise<Registration> {
  const res = await fetch(`${api.url}/agent/identity`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ type: 'anonymous' }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

export function tokenRequest(api: TestApi, form: Record<string, string>) {
  return fetch(`${api.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

export async function accessTokenFor(api: TestApi, assertion: string): Promise<string> {
  const res = await tokenRequest(api, { grant_type: JWT_BEARER, assertion });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()).access_token;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export async function startClaim(api: TestApi, claimToken: string) {
  const res = await fetch(`${api.url}/agent/identity/claim`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ claim_token: claimToken }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json() as Promise<{
    claim_attempt_token: string;
    user_code: string;
    verification_uri: string;
    verification_uri_complete: string;
    expires_at: string;
  }>;
}

/**
 * Runs `fn` while the tables are locked against writes (SHARE mode), and checks that their row
 * counts did not move. Other suites run in parallel; the lock keeps their inserts out of the count.
 * A request under test that tried to insert would block on the lock and time the test out.
 */
export async function expectNoNewRows(api: TestApi, tables: string[], fn: () => Promise<void>): Promise<void> {
  await api.ctx.orm.em.fork().transactional(async (tx) => {
    await tx.execute(`lock table ${tables.join(', ')} in share mode`);
    const counts = () =>
      Promise.all(
        tables.map(async (t) => Number((await tx.execute<{ n: string }[]>(`select count(*) as n from ${t}`))[0].n)),
      );
    const before = await counts();
    await fn();
    expect(await counts()).toEqual(before);
  });
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A browser stand-in for the HTML pages: keeps the session cookie and reads CSRF tokens from forms. */
export class WebClient {
  cookie = '';
  /** `headers` lets a test pose as another client address (X-Forwarded-For is trusted from loopback). */
  constructor(
    readonly base: string,
    readonly headers: Record<string, string> = {},
  ) {}

  /** The one-time flash cookie a form's 303 carries to the next page (src/web/session.ts). */
  private flash = '';

  private remember(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(';')[0];
      if (pair.startsWith('ad_session=')) this.cookie = pair;
      if (pair.startsWith('ad_flash=')) this.flash = pair === 'ad_flash=' ? '' : pair;
      if (pair.startsWith('ad_device=')) this.device = pair;
    }
  }

  /** The known-device cookie a password sign-in leaves (src/identity/sign-in-guard.ts). */
  device = '';

  private cookies(): Record<string, string> {
    const all = [this.cookie, this.flash, this.device].filter(Boolean).join('; ');
    return all ? { cookie: all } : {};
  }

  async get(path: string) {
    const res = await fetch(`${this.base}${path}`, {
      redirect: 'manual',
      headers: { ...this.headers, ...this.cookies() },
    });
    this.remember(res);
    return { res, body: await res.text() };
  }

  async post(path: string, fields: Record<string, string>) {
    const res = await fetch(`${this.base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        ...this.headers,
        'content-type': 'application/x-www-form-urlencoded',
        ...this.cookies(),
      },
      body: new URLSearchParams(fields).toString(),
    });
    this.remember(res);
    return { res, body: await res.text() };
  }

  static csrfOf(page: string): string {
    const m = /name="csrf" value="([^"]+)"/.exec(page);
    if (!m) throw new Error('no csrf field on the page');
    return m[1];
  }

  /**
   * Creates an account as a person does: signs up (the answer only says to check the mail), opens the mailed link
   * and confirms it with the password, which signs in. Returns where the confirmation sent the client.
   */
  async signUp(email: string, password = 'correct horse battery', returnTo = '/dashboard') {
    const mailbox = mailboxOfApi(this.base);
    const before = mailbox.messages.length;
    await this.startSignUp(email, password, returnTo);
    const path = verificationPath(await mailbox.waitFor(email, before));
    const page = await this.get(path);
    expect(page.res.status, page.body).toBe(200);
    const fields = Object.fromEntries(
      [...page.body.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"/g)].map((m) => [
        m[1],
        unescapeHtml(m[2]),
      ]),
    );
    const confirmed = await this.post('/auth/verify', { ...fields, password });
    expect(confirmed.res.status, confirmed.body).toBe(303);
    return confirmed.res.headers.get('location')!;
  }

  /** Posts the sign-up form; the answer, whatever the address, only says to check the mail. */
  async startSignUp(email: string, password = 'correct horse battery', returnTo = '/dashboard') {
    const form = await this.get('/auth/signup');
    const res = await this.post('/auth/signup', {
      csrf: WebClient.csrfOf(form.body),
      email,
      password,
      return_to: returnTo,
    });
    expect(res.res.status, res.body).toBe(200);
    expect(res.body).toContain('Check your mail');
    return res;
  }

  /**
   * Confirms the account's email as its owner does: reads the newest link sent to `email` (after
   * `after` messages) from the test SMTP server, opens it signed in, and submits the confirmation.
   */
  async verifyEmail(mailbox: Mailbox, email: string, after = 0) {
    const path = verificationPath(await mailbox.waitFor(email, after));
    const page = await this.get(path);
    expect(page.res.status, page.body).toBe(200);
    const token = new URL(path, this.base).searchParams.get('token')!;
    const posted = await this.post('/auth/verify', { csrf: WebClient.csrfOf(page.body), token });
    expect(posted.res.status, posted.body).toBe(303);
    const done = await this.get(posted.res.headers.get('location')!);
    expect(done.res.status, done.body).toBe(200);
    expect(done.body).toContain('is confirmed');
  }

  /** Opens the verification page for a code and submits a decision; returns the result page (after POST → 303). */
  async decide(code: string, decision: 'approve' | 'decline') {
    const page = await this.get(`/claim?code=${code}`);
    expect(page.res.status, page.body).toBe(200);
    const posted = await this.post('/claim', { csrf: WebClient.csrfOf(page.body), code, decision });
    if (posted.res.status !== 303) return posted;
    return this.get(posted.res.headers.get('location')!);
  }
}

/** An anonymous agent drive claimed through the pages by the signed-in web client. */
export async function claimThroughPages(api: TestApi, web: WebClient): Promise<Registration> {
  const reg = await registerAnonymous(api);
  const claim = await startClaim(api, reg.claim_token);
  const done = await web.decide(claim.user_code, 'approve');
  expect(done.body).toContain('Approved');
  return reg;
}

/** A documentation-range address unlikely to be shared with another test in the same run. */
export const randomIp = () => `192.0.2.${Math.floor(Math.random() * 254) + 1}`;

export const uniqueEmail = (tag: string) =>
  `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
