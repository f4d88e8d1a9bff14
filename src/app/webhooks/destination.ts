// Where deliveries may go: not, unless allowed (--webhook-allow-loopback), to any address of IANA's
// special-purpose registries (IPv4 and IPv6: this host, private and shared networks, link-local ranges
// with cloud metadata services, documentation and benchmarking ranges, relays and translators that
// carry an IPv4 address inside an IPv6 one), nor to multicast, so a subscription cannot make the service
// call what only it can reach. An IPv4 address mapped into IPv6 is checked as the IPv4 address (Node's
// BlockList does so). The address is checked as connected to: a name is resolved at each delivery and
// every address it resolves to is checked, so a name cannot be repointed past the check.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** IANA IPv4 Special-Purpose Address Registry (every entry), and multicast. */
const IPV4_SPECIAL: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // this network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.31.196.0', 24], // AS112-v4
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // direct delegation AS112 service
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the limited broadcast address
];

/** IANA IPv6 Special-Purpose Address Registry (every entry), and multicast. */
const IPV6_SPECIAL: ReadonlyArray<readonly [string, number]> = [
  ['::', 96], // unspecified, and IPv4-compatible addresses (an IPv4 address inside)
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // IPv4/IPv6 translation (an IPv4 address inside)
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy prefix
  ['2001::', 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID…)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (an IPv4 address inside)
  ['2620:4f:8000::', 48], // direct delegation AS112 service
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing (SRv6) SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
];

const REFUSED = new BlockList();
for (const [net, prefix] of IPV4_SPECIAL) REFUSED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of IPV6_SPECIAL) REFUSED.addSubnet(net, prefix, 'ipv6');

/** Why deliveries may not go to `address` (an IP), or undefined when they may. */
export function refusedAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  let ip = address;
  let type: 'ipv4' | 'ipv6' = family === 4 ? 'ipv4' : 'ipv6';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) [ip, type] = [mapped[1]!, 'ipv4'];
  return REFUSED.check(ip, type)
    ? `${address} is a loopback, link-local, private or other special-purpose address (allowed with --webhook-allow-loopback)`
    : undefined;
}

/** The host of a URL as an IP literal (brackets removed), or undefined for a name. */
export function ipHost(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) ? host : undefined;
}

/** A lookup for connections that fails for a name resolving to a refused address. */
export const checkedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const refused = addresses.map((a) => refusedAddress(a.address)).find((r) => r !== undefined);
    // Not which address: the error is shown to whoever manages webhooks, and would map internal names.
    if (refused) return callback(new Error(`${hostname} resolves to a refused (special-purpose) address`), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
};
