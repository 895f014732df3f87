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
const open = { allowLoopback: true, requireHttps: false, timeoutMs: 5000, extraPorts: [] };

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
    // The receiver's port allowed, so what refuses is the address (a port outside the list is refused first).
    const strict = { ...open, allowLoopback: false, extraPorts: [Number(new URL(rx.url).port)] };
    const byName = await postOnce(rx.url.replace('127.0.0.1', 'localhost'), {}, '{}', strict);
    expect(byName.ok).toBe(false);
    expect(byName.error).toMatch(/loopback/);
    const byAddress = await postOnce(rx.url, {}, '{}', strict);
    expect(byAddress).toMatchObject({
      ok: false,
      error: 'refused: the address is a loopback address',
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

  it('judges every IPv6 form that embeds an IPv4 address by that address, and refuses the translation ranges', () => {
    const policy = { allowLoopback: false };
    for (const a of [
      '::a00:1', // IPv4-compatible 10.0.0.1
      '::ffff:a00:1', // mapped, hex
      '64:ff9b::a00:1', // NAT64 well-known prefix
      '2002:a00:1::', // 6to4 of 10.0.0.1
      '::ffff:0:a00:1', // IPv4-translated
      'fec0::1', // site-local
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      '64:ff9b:1::a00:1', // local-use NAT64
      '2002:a9fe:a9fe::', // 6to4 of 169.254.169.254
      '::7f00:1', // IPv4-compatible 127.0.0.1
    ])
      expect([a, refusedAddress(a, policy)]).toEqual([a, expect.any(String)]);
    // The same forms around a public IPv4 address are not private.
    expect(refusedAddress('2002:5db8:d822::', policy)).toBeNull();
    expect(refusedAddress('64:ff9b::5db8:d822', policy)).toBeNull();
  });

  it('keeps only the status of an error answer, never its body', async () => {
    const rx = await receiver();
    rx.answer = () => 500;
    const r = await postOnce(rx.url, {}, '{"seq":1}', open);
    expect(r).toMatchObject({ ok: false, statusCode: 500, error: 'HTTP 500' });
  });

  it('ends an attempt at once when its signal aborts (a cancelled drain activity)', async () => {
    const rx = await receiver();
    rx.answer = () => 'hang';
    const stop = new AbortController();
    const pending = postOnce(rx.url, {}, '{"seq":1}', { ...open, timeoutMs: 10_000, signal: stop.signal });
    await rx.until((got) => got.length === 1);
    stop.abort();
    expect(await pending).toMatchObject({ ok: false, error: 'cancelled' });
  });
});
