import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { lookup as lookupCallback } from 'node:dns';
import { AppError } from '../lib/errors.js';

/**
 * Where a webhook may point (docs/decisions/feed.md, Webhooks → Safety): never at this service's own
 * network. Checked when the webhook is created and again on every connection a delivery opens (the
 * lookup below), since DNS can change between the two.
 */
export interface AddressPolicy {
  allowLoopback: boolean;
  requireHttps: boolean;
  /** Ports a webhook may name besides 80 and 443 (WEBHOOK_PORTS). */
  extraPorts: number[];
}

const ranges = (list: [string, number, 'ipv4' | 'ipv6'][]) => {
  const b = new BlockList();
  for (const [net, prefix, type] of list) b.addSubnet(net, prefix, type);
  return b;
};
const LOOPBACK = ranges([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
]);
const LINK_LOCAL = ranges([
  ['169.254.0.0', 16, 'ipv4'], // includes 169.254.169.254, the cloud metadata address
  ['fe80::', 10, 'ipv6'],
]);
const PRIVATE = ranges([
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT; holds Alibaba's metadata address
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['224.0.0.0', 3, 'ipv4'], // multicast and reserved, up to 255.255.255.255
  ['::', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'], // unique local; holds AWS's IPv6 metadata address fd00:ec2::254
  ['fec0::', 10, 'ipv6'], // site-local (deprecated, still routed by some stacks)
  ['ff00::', 8, 'ipv6'],
  ['2001::', 32, 'ipv6'], // Teredo: the client's IPv4 address rides in the last 32 bits, obfuscated
  ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64: any IPv4 address of the local network
  ['100::', 64, 'ipv6'], // discard-only
  ['2001:db8::', 32, 'ipv6'], // documentation
]);
/** Names of metadata services that resolve only inside their cloud. */
const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data']);

/** Why an address is refused, or null when a webhook may connect to it. */
export function refusedAddress(address: string, policy: Pick<AddressPolicy, 'allowLoopback'>): string | null {
  // An IPv6 form that carries an IPv4 address is judged as the IPv4 address it carries.
  const ip = embeddedIpv4(address) ?? address;
  const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (LOOPBACK.check(ip, type)) return policy.allowLoopback ? null : 'a loopback address';
  if (LINK_LOCAL.check(ip, type)) return 'a link-local or metadata address';
  if (PRIVATE.check(ip, type)) return 'a private or reserved address';
  return null;
}

/**
 * The IPv4 address an IPv6 address embeds, by the forms that reach it: IPv4-compatible (::/96, not :: or ::1),
 * mapped (::ffff:0:0/96), translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16, bits 16-48).
 */
export function embeddedIpv4(address: string): string | null {
  if (isIP(address) !== 6) return null;
  const w = ipv6Words(address);
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  if (w[0] === 0x2002) return v4(w[1]!, w[2]!);
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return v4(w[6]!, w[7]!);
  // :: and ::1 are IPv6's own (reserved, loopback); the rest of ::/96 is IPv4-compatible.
  if (zeros(0, 6)) return w[6] === 0 && w[7]! <= 1 ? null : v4(w[6]!, w[7]!);
  if (zeros(0, 5) && w[5] === 0xffff) return v4(w[6]!, w[7]!);
  if (zeros(0, 4) && w[4] === 0xffff && w[5] === 0) return v4(w[6]!, w[7]!);
  return null;
}

/** The eight 16-bit words of an IPv6 address (a trailing dotted IPv4 part is read as two words). */
function ipv6Words(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (p: string | undefined) => (p ? p.split(':').map((x) => parseInt(x, 16)) : []);
  const h = part(head);
  const t = part(tail);
  return tail === undefined ? h : [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/** Why a URL's port is refused (80, 443 and WEBHOOK_PORTS only; loopback in development may use any), or null. */
export function portRefused(url: URL, policy: AddressPolicy): string | null {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (port === 80 || port === 443 || policy.extraPorts.includes(port)) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (
    policy.allowLoopback &&
    (host === 'localhost' || (isIP(host) && LOOPBACK.check(host, isIP(host) === 6 ? 'ipv6' : 'ipv4')))
  )
    return null;
  return `port ${port} is not allowed (80, 443${policy.extraPorts.map((p) => `, ${p}`).join('')})`;
}

const refused = (message: string) => new AppError('WEBHOOK_URL_REFUSED', message);

/** Checks a webhook URL at creation: scheme, no credentials, and every address its host resolves to. */
export async function checkWebhookUrl(raw: string, policy: AddressPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused('url is not an absolute URL');
  }
  if (url.protocol !== 'https:' && (url.protocol !== 'http:' || policy.requireHttps))
    throw refused(policy.requireHttps ? 'url must be https' : 'url must be http or https');
  if (url.username || url.password) throw refused('url must not carry credentials');
  const port = portRefused(url, policy);
  if (port) throw refused(port);
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (METADATA_HOSTS.has(host)) throw refused(`${host} is a metadata service`);
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    throw refused(`${host} does not resolve`);
  }
  for (const address of addresses) {
    const why = refusedAddress(address, policy);
    // The reason only: the address a name resolves to inside this network is not the caller's to learn.
    if (why) throw refused(`${host} resolves to ${why}`);
  }
  return url;
}

/**
 * A `lookup` for http.request that refuses what checkWebhookUrl refuses, at connection time. (Node
 * skips lookup for an IP literal host; deliveries check those themselves with refusedAddress.)
 */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    if (METADATA_HOSTS.has(hostname.toLowerCase()))
      return callback(new Error(`refused: ${hostname} is a metadata service`), '', 4);
    lookupCallback(hostname, { ...options, all: true }, (err, found) => {
      if (err) return callback(err, '', 4);
      const why = found.map((a) => refusedAddress(a.address, policy)).find(Boolean);
      if (why) return callback(new Error(`refused: ${hostname} resolves to ${why}`), '', 4);
      if (options.all) return (callback as unknown as (e: null, a: typeof found) => void)(null, found);
      callback(null, found[0]!.address, found[0]!.family);
    });
  };
}
