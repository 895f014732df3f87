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
  ['ff00::', 8, 'ipv6'],
]);
/** Names of metadata services that resolve only inside their cloud. */
const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data']);

/** Why an address is refused, or null when a webhook may connect to it. */
export function refusedAddress(address: string, policy: AddressPolicy): string | null {
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as the IPv4 address it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (LOOPBACK.check(ip, type)) return policy.allowLoopback ? null : 'a loopback address';
  if (LINK_LOCAL.check(ip, type)) return 'a link-local or metadata address';
  if (PRIVATE.check(ip, type)) return 'a private or reserved address';
  return null;
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
    if (why) throw refused(`${host} resolves to ${why} (${address})`);
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
      return callback(new Error(`${hostname} is a metadata service`), '', 4);
    lookupCallback(hostname, { ...options, all: true }, (err, found) => {
      if (err) return callback(err, '', 4);
      const why = found.map((a) => refusedAddress(a.address, policy)).find(Boolean);
      if (why) return callback(new Error(`${hostname} resolves to ${why}`), '', 4);
      if (options.all) return (callback as unknown as (e: null, a: typeof found) => void)(null, found);
      callback(null, found[0]!.address, found[0]!.family);
    });
  };
}
