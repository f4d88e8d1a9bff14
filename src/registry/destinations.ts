// Where a registry client may send a request besides the registry the operator named: a redirect (blobs
// served from object storage) or a Bearer token realm. A redirect goes only to the registry's own host or
// to a host the operator allowed (--registry-allow-hosts); a realm on another host is asked anonymously
// unless allowed. Never, whatever the list says, to a link-local address (cloud metadata services), to a
// loopback address other than the registry's own, over a scheme other than HTTP(S), or from HTTPS down
// to plain HTTP. Names are checked again on the addresses they resolve to, when the connection is made.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

export class DestinationPolicy {
  private readonly allowed: Set<string>;

  constructor(
    /** The registry as named, e.g. `https://quay.example.com` or `http://127.0.0.1:5000`. */
    private readonly registry: URL,
    allowedHosts: readonly string[] = [],
  ) {
    this.allowed = new Set(allowedHosts.map((h) => h.toLowerCase()));
  }

  /** Whether `url` is on the registry's own host and port. */
  isRegistry(url: URL): boolean {
    return url.protocol === this.registry.protocol && url.host === this.registry.host;
  }

  /** Whether the operator allowed `url`'s host (as `HOST` or `HOST:PORT`). */
  isAllowed(url: URL): boolean {
    return this.allowed.has(url.hostname.toLowerCase()) || this.allowed.has(url.host.toLowerCase());
  }

  /** Why a redirect to `url` is refused, or undefined when it may be followed. */
  refusedRedirect(url: URL): string | undefined {
    const unsafe = this.unsafe(url);
    if (unsafe) return unsafe;
    if (this.isRegistry(url) || this.isAllowed(url)) return undefined;
    return `${url.host} is not the registry's host (allow it with --registry-allow-hosts)`;
  }

  /** Why a token request to the realm `url` is refused, or undefined when it may be sent. */
  refusedRealm(url: URL): string | undefined {
    return this.unsafe(url);
  }

  /** Whether the registry's credentials may go to `url` (its own host, or one the operator allowed). */
  mayCarryCredentials(url: URL): boolean {
    return this.isRegistry(url) || this.isAllowed(url);
  }

  /** The rules no allow-list lifts, on the URL as written. */
  private unsafe(url: URL): string | undefined {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `the scheme ${url.protocol} is not HTTP(S)`;
    if (this.registry.protocol === 'https:' && url.protocol === 'http:')
      return `${url.host}: from HTTPS down to plain HTTP`;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && isLinkLocal(host)) return `${host} is a link-local address`;
    if (this.loopbackRefused(host)) return `${host} is a loopback address other than the registry's`;
    return undefined;
  }

  private loopbackRefused(host: string): boolean {
    const registryHost = this.registry.hostname.replace(/^\[|\]$/g, '');
    const loopback = host === 'localhost' || (isIP(host) !== 0 && isLoopback(host));
    return loopback && host !== registryHost && !this.allowed.has(host.toLowerCase());
  }

  /**
   * A `lookup` for the connections the client opens: a name that resolves to a link-local address, or a name
   * other than the registry's (and not allowed) that resolves to loopback, is refused at connect time (so a DNS
   * answer cannot lead around the checks on the URL).
   */
  readonly lookup = (
    hostname: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const registryHost = this.registry.hostname.replace(/^\[|\]$/g, '');
      const loopbackOk = registryHost === hostname || this.allowed.has(hostname.toLowerCase());
      const usable = addresses.filter((a) => !isLinkLocal(a.address) && (loopbackOk || !isLoopback(a.address)));
      if (!usable.length) {
        const refused = Object.assign(new Error(`${hostname} resolves only to link-local or loopback addresses`), {
          code: 'EREFUSEDADDRESS',
        });
        return callback(refused, '');
      }
      if (options.all) callback(null, usable);
      else callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

/** 169.254.0.0/16 and fe80::/10 (and an IPv4-mapped link-local). */
export function isLinkLocal(address: string): boolean {
  const v4 = address.replace(/^::ffff:/i, '');
  if (isIP(v4) === 4) return v4.startsWith('169.254.');
  return /^fe[89ab][0-9a-f]:/i.test(address);
}

/** 127.0.0.0/8 and ::1 (and an IPv4-mapped loopback). */
export function isLoopback(address: string): boolean {
  const v4 = address.replace(/^::ffff:/i, '');
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return address === '::1' || /^0*:0*:0*:0*:0*:0*:0*:0*1$/.test(address);
}
