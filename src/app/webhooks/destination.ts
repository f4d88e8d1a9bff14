// Where deliveries may go: not, unless allowed (--webhook-allow-loopback), to this host, the link-local
// range (cloud metadata services) or private networks, so a subscription cannot make the service call
// what only it can reach. The address is checked as connected to: a name is resolved at each
// delivery and every address it resolves to is checked, so a name cannot be repointed past the check.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const REFUSED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  REFUSED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  REFUSED.addSubnet(net, prefix, 'ipv6');

/** Why deliveries may not go to `address` (an IP), or undefined when they may. */
export function refusedAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  let ip = address;
  let type: 'ipv4' | 'ipv6' = family === 4 ? 'ipv4' : 'ipv6';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) [ip, type] = [mapped[1]!, 'ipv4'];
  return REFUSED.check(ip, type)
    ? `${address} is a loopback, link-local or private address (allowed with --webhook-allow-loopback)`
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
    if (refused) return callback(new Error(`${hostname} resolves to ${refused}`), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
};
