import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueEmail, WebClient } from '../identity/helpers.js';
import { alive, descendants, exited, launch, launcherPorts, openPorts, waitUntil } from './launcher-helpers.js';

/**
 * `npm start`'s launcher, run for real on its own ports and data folder: it reaches the ready
 * line, stops cleanly on SIGINT, and when the API process dies it takes every child down with it.
 */
const base = Number(process.env.TEST_PORT_BASE ?? 15400) + 60;
const ports = launcherPorts(base);
const dataDir = `.data/launcher-${base}`;

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm start launcher', () => {
  it('reaches the ready line, then Ctrl-C stops every child', async () => {
    const { proc, ready } = launch(base, dataDir);
    const line = await ready;
    expect(line).toMatch(
      new RegExp(`api http://localhost:${ports.api} .*temporal-ui http://127\\.0\\.0\\.1:${ports.ui}`),
    );
    // The local mail catcher's inbox is named on the ready line and serves its web page.
    expect(line).toMatch(new RegExp(`mail-inbox http://127\\.0\\.0\\.1:${ports.mailWeb}`));
    expect(
      await fetch(`http://127.0.0.1:${ports.mailWeb}/`, { headers: { accept: 'text/html' } }).then((r) => r.status),
    ).toBe(200);
    // A sign-up's verification mail lands in that inbox (the embedded default for SMTP_URL).
    const email = uniqueEmail('launcher');
    await new WebClient(`http://127.0.0.1:${ports.api}`).startSignUp(email);
    const inbox = await waitUntil(async () => {
      const mails = (await (await fetch(`http://127.0.0.1:${ports.mailWeb}/api/email`)).json()) as {
        to: { address: string }[];
        text: string;
      }[];
      return mails.some((m) => m.to.some((t) => t.address === email) && /\/auth\/verify\?token=adev_/.test(m.text));
    }, 10_000);
    expect(inbox).toBe(true);
    const readyz = await fetch(`http://127.0.0.1:${ports.api}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await fetch(`http://127.0.0.1:${ports.ui}/`).then((r) => r.status)).toBe(200);
    const children = descendants(proc.pid!).map((c) => c.pid);

    proc.kill('SIGINT');
    expect(await exited(proc)).toBe(0);
    expect(await openPorts(base)).toEqual([]);
    expect(await waitUntil(() => alive(children).length === 0, 5000)).toBe(true);
  }, 240_000);

  it('when the API process is killed, the launcher exits and leaves no orphans', async () => {
    const { proc, ready } = launch(base, dataDir);
    await ready;
    const children = descendants(proc.pid!).map((c) => c.pid);
    const apiPid = execFileSync('pgrep', ['-P', String(proc.pid), '-f', 'src/main.ts'], { encoding: 'utf8' }).trim();
    expect(apiPid).toMatch(/^\d+$/);
    process.kill(Number(apiPid), 'SIGKILL');

    expect(await exited(proc)).not.toBe(0);
    expect(await openPorts(base)).toEqual([]);
    expect(await waitUntil(() => alive(children).length === 0, 5000)).toBe(true);
  }, 240_000);
});
