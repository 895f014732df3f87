import { afterAll, describe, expect, it } from 'vitest';
import { postOnce, signature } from '../../src/feed/webhook-send.js';
import { refusedAddress } from '../../src/feed/webhook-address.js';
import { startReceiver, verifies, type Receiver } from './receiver.js';

// One delivery attempt against a real receiver on 127.0.0.1: the bounds a worker relies on.
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});
const receiver = async () => {
  const r = await startReceiver();
  receivers.push(r);
  return r;
};
const open = { allowLoopback: true, requireHttps: false, timeoutMs: 5000 };

describe('one webhook attempt', () => {
  it('signs the exact bytes it sends', async () => {
    const rx = await receiver();
    const body = JSON.stringify({ seq: 1, action: 'artifact.created' });
    const r = await postOnce(
      rx.url,
      { 'x-drive-timestamp': '1700000000', 'x-drive-signature': signature(['s1'], 1700000000, body) },
      body,
      open,
    );
    expect(r).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(verifies(rx.received[0]!, 's1')).toBe(true);
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const rx = await receiver();
    rx.answer = () => 'hang';
    const r = await postOnce(rx.url, {}, '{"seq":1}', { ...open, timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, statusCode: null, error: 'timed out after 300 ms' });
  });

  it('refuses loopback at connection time too when loopback is not allowed (DNS may change after creation)', async () => {
    const rx = await receiver();
    const strict = { ...open, allowLoopback: false };
    const byName = await postOnce(rx.url.replace('127.0.0.1', 'localhost'), {}, '{}', strict);
    expect(byName.ok).toBe(false);
    expect(byName.error).toMatch(/loopback/);
    const byAddress = await postOnce(rx.url, {}, '{}', strict);
    expect(byAddress).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^refused: 127\.0\.0\.1 is a loopback/),
    });
    expect(rx.received).toHaveLength(0);
  });

  it('classifies addresses', () => {
    const policy = { allowLoopback: false, requireHttps: false };
    expect(refusedAddress('169.254.169.254', policy)).toMatch(/metadata/);
    expect(refusedAddress('::ffff:10.1.2.3', policy)).toMatch(/private/);
    expect(refusedAddress('fd00:ec2::254', policy)).toMatch(/private/);
    expect(refusedAddress('::1', policy)).toMatch(/loopback/);
    expect(refusedAddress('93.184.216.34', policy)).toBeNull();
    expect(refusedAddress('2606:4700::1111', policy)).toBeNull();
  });
});
