// Where a registry client may be sent besides its registry (redirects, token realms): the rules of
// src/registry/destinations.ts, and the lookup that applies them to the addresses a name resolves to.
import { describe, expect, it } from 'vitest';
import { DestinationPolicy, isLinkLocal, isLoopback } from '../../../src/registry/destinations.js';

const policy = (registry: string, allowed: string[] = []): DestinationPolicy =>
  new DestinationPolicy(new URL(registry), allowed);

describe('hostile finding 2: the destinations a registry may send the client to', () => {
  it('follows a redirect only to the registry itself or an allowed host', () => {
    const p = policy('https://quay.example.com', ['storage.example.net', 'cdn.example.org:8443']);
    expect(p.refusedRedirect(new URL('https://quay.example.com/v2/x/blobs/sha256:1'))).toBeUndefined();
    expect(p.refusedRedirect(new URL('https://storage.example.net/bucket/obj?sig=1'))).toBeUndefined();
    expect(p.refusedRedirect(new URL('https://cdn.example.org:8443/o'))).toBeUndefined();
    expect(p.refusedRedirect(new URL('https://cdn.example.org/o'))).toMatch(/not the registry's host/);
    expect(p.refusedRedirect(new URL('https://evil.example.com/o'))).toMatch(/--registry-allow-hosts/);
  });

  it('never to link-local, another loopback, another scheme, or down from HTTPS, whatever is allowed', () => {
    const p = policy('https://quay.example.com', ['169.254.169.254', 'storage.example.net']);
    expect(p.refusedRedirect(new URL('http://169.254.169.254/latest/meta-data'))).toMatch(/HTTPS down to plain HTTP/);
    expect(p.refusedRedirect(new URL('https://169.254.169.254/latest'))).toMatch(/link-local/);
    expect(p.refusedRedirect(new URL('https://[fe80::1]/x'))).toMatch(/link-local/);
    expect(p.refusedRedirect(new URL('https://127.0.0.1:6443/x'))).toMatch(
      /loopback address other than the registry's/,
    );
    expect(p.refusedRedirect(new URL('https://localhost/x'))).toMatch(/loopback/);
    expect(p.refusedRedirect(new URL('ftp://storage.example.net/x'))).toMatch(/scheme ftp: is not HTTP/);
    expect(p.refusedRedirect(new URL('http://storage.example.net/x'))).toMatch(/down to plain HTTP/);
    // A registry on loopback may redirect to its own address, not to another loopback one.
    const local = policy('http://localhost:5000');
    expect(local.refusedRedirect(new URL('http://localhost:5000/v2/'))).toBeUndefined();
    expect(local.refusedRedirect(new URL('http://127.0.0.1:9090/'))).toMatch(/loopback address other/);
  });

  it('gives a realm on another host no credentials unless allowed, and refuses the ones no list lifts', () => {
    const p = policy('https://quay.example.com', ['auth.example.com']);
    expect(p.refusedRealm(new URL('https://other.example.com/token'))).toBeUndefined();
    expect(p.mayCarryCredentials(new URL('https://other.example.com/token'))).toBe(false);
    expect(p.mayCarryCredentials(new URL('https://auth.example.com/token'))).toBe(true);
    expect(p.mayCarryCredentials(new URL('https://quay.example.com/v2/auth'))).toBe(true);
    expect(p.refusedRealm(new URL('https://169.254.169.254/token'))).toMatch(/link-local/);
  });

  it('refuses a name that resolves only to link-local or to loopback at connect time', async () => {
    const p = policy('https://quay.example.com');
    const lookup = (host: string): Promise<string> =>
      new Promise((resolve) =>
        p.lookup(host, {}, (err, address) => resolve(err ? `refused: ${err.message}` : String(address))),
      );
    expect(await lookup('localhost')).toMatch(/refused: localhost resolves only to link-local or loopback/);
    expect(isLinkLocal('169.254.1.2')).toBe(true);
    expect(isLinkLocal('::ffff:169.254.1.2')).toBe(true);
    expect(isLinkLocal('10.0.0.1')).toBe(false);
    expect(isLoopback('127.1.2.3')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('192.168.1.1')).toBe(false);
  });
});
