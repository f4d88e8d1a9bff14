// `cincy serve --tls-cert --tls-key` as a process: HTTPS with the given certificate, new files taken
// while it runs (as cert-manager or an updated Secret brings them), files that do not go together
// refused with the certificate in use kept, and bad flags refused at start naming the flag and file.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { cincy, serveCli, useCleanup } from '../support/cli.js';

const cleanup = useCleanup();

/** A self-signed certificate for 127.0.0.1 (openssl), valid `days`: its files. */
function certificate(dir: string, name: string, days: number): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      String(days),
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/** A self-signed certificate for 127.0.0.1 that expired on 2 January 2020 (`openssl ca`, which takes dates). */
function expiredCertificate(dir: string): { cert: string; key: string } {
  const at = (name: string): string => join(dir, name);
  writeFileSync(at('index.txt'), '');
  writeFileSync(at('serial'), '01\n');
  writeFileSync(
    at('ca.cnf'),
    `[ca]\ndefault_ca = d\n[d]\ndir = ${dir}\ndatabase = ${at('index.txt')}\nnew_certs_dir = ${dir}\n` +
      `serial = ${at('serial')}\ndefault_md = sha256\npolicy = p\ncopy_extensions = copy\n[p]\ncommonName = supplied\n`,
  );
  const key = at('old.key');
  const cert = at('old.crt');
  const run = (args: string[]): void => void execFileSync('openssl', args, { stdio: 'ignore' });
  run([
    ...['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key],
    ...['-out', at('old.csr'), '-subj', '/CN=old', '-addext', 'subjectAltName=IP:127.0.0.1'],
  ]);
  run([
    ...['ca', '-batch', '-config', at('ca.cnf'), '-selfsign', '-keyfile', key, '-in', at('old.csr'), '-out', cert],
    ...['-startdate', '20200101000000Z', '-enddate', '20200102000000Z'],
  ]);
  return { cert, key };
}

/** The certificate a new TLS connection to `port` is shown (its subject CN). */
function served(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const cn = socket.getPeerCertificate().subject?.CN;
      socket.end();
      resolve(String(cn));
    });
    socket.on('error', reject);
  });
}

async function until(what: string, f: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('serve over HTTPS', () => {
  it('serves with the given certificate, takes renewed files without a restart, and keeps it through bad ones', async () => {
    const dir = cleanup.dir();
    const first = certificate(dir, 'first', 2);
    const second = certificate(dir, 'second', 30);
    const cert = join(dir, 'tls.crt');
    const key = join(dir, 'tls.key');
    copyFileSync(first.cert, cert);
    copyFileSync(first.key, key);
    const server = await serveCli(['--db', ':memory:', '--demo', '--tls-cert', cert, '--tls-key', key], cleanup);
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const port = Number(new URL(server.url).port);

    // A client that trusts the certificate (as a cluster given it in the proxy's trustedCA) gets the graph.
    const trusting = new Agent({ connect: { ca: readFileSync(first.cert) } });
    cleanup.add(() => trusting.close());
    const graph = await request(`${server.url}/graph?channel=stable-4.16`, {
      dispatcher: trusting,
      headers: { accept: 'application/json' },
    });
    expect(graph.statusCode).toBe(200);
    expect(((await graph.body.json()) as { nodes: unknown[] }).nodes.length).toBeGreaterThan(0);
    const metrics = async (): Promise<string> =>
      (
        await request(`${server.url}/metrics`, { dispatcher: new Agent({ connect: { rejectUnauthorized: false } }) })
      ).body.text();
    const expiry = (file: string): number => Date.parse(new X509Certificate(readFileSync(file)).validTo) / 1000;
    expect(await metrics()).toContain(`cincy_tls_certificate_expiry_timestamp_seconds ${expiry(first.cert)}`);
    expect(await served(port)).toBe('first');

    // The CLI trusts that certificate when told to (--certificate-authority, or CINCY_CERTIFICATE_AUTHORITY),
    // and not otherwise; a file without a certificate is refused, naming the flag and the file.
    const question = ['path', '4.12.10', '4.16.5', '--server', server.url];
    const untrusted = cincy(question);
    expect(untrusted.code).not.toBe(0);
    expect(untrusted.stderr).toMatch(/cannot reach https:\/\/127\.0\.0\.1:\d+: .*certificate/i);
    const trusted = cincy([...question, '--certificate-authority', first.cert]);
    expect(trusted.stderr).toBe('');
    expect(trusted.stdout).toMatch(/^path 1: /);
    const plan = cincy(['mirror-plan', '--server', server.url, '--to', '4.16.5', '--from', '4.12.10'], {
      CINCY_CERTIFICATE_AUTHORITY: first.cert,
    });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('4.16.5');
    const notACertificate = cincy([...question, '--certificate-authority', first.key]);
    expect(notACertificate.code).not.toBe(0);
    expect(notACertificate.stderr).toContain(`--certificate-authority: ${first.key} holds no PEM certificate`);

    // Renewed: new connections are shown the new certificate, with no restart.
    copyFileSync(second.key, key);
    copyFileSync(second.cert, cert);
    await until('the renewed certificate served', async () => (await served(port)) === 'second');
    expect(await metrics()).toContain(`cincy_tls_certificate_expiry_timestamp_seconds ${expiry(second.cert)}`);
    expect(server.log()).toMatch(/"msg":"TLS certificate reloaded"/);

    // A certificate that does not go with the key: refused, logged, and the one in use stays.
    copyFileSync(first.cert, cert);
    await until('the refusal logged', async () => /new TLS files refused/.test(server.log()));
    expect(server.log()).toMatch(/does not go with/);
    expect(await served(port)).toBe('second');
  });

  it('serves an expired certificate, saying so at start and on /readyz', async () => {
    const old = expiredCertificate(cleanup.dir());
    const server = await serveCli(
      ['--db', ':memory:', '--demo', '--tls-cert', old.cert, '--tls-key', old.key],
      cleanup,
    );
    const said = 'the TLS certificate (CN=old) expired at 2020-01-02T00:00:00.000Z: clients refuse it';
    expect(server.log()).toContain(`--tls-cert: ${said}`);
    const insecure = new Agent({ connect: { rejectUnauthorized: false } });
    cleanup.add(() => insecure.close());
    const ready = await request(`${server.url}/readyz`, { dispatcher: insecure });
    expect(((await ready.body.json()) as { certificate?: string }).certificate).toBe(said);
  });

  it('refuses at start a pair that does not go together, a missing file, one flag without the other, and an origin no browser sends', () => {
    const dir = cleanup.dir();
    const a = certificate(dir, 'a', 2);
    const b = certificate(dir, 'b', 2);
    /** `cincy serve` on :memory: and any port, with these TLS flags. */
    const serveWith = (...tls: string[]): ReturnType<typeof cincy> =>
      cincy(['serve', '--db', ':memory:', '--port', '0', ...tls]);
    const mismatched = serveWith('--tls-cert', a.cert, '--tls-key', b.key);
    expect(mismatched.code).toBe(1);
    expect(mismatched.stderr).toContain(`--tls-key: ${b.key} does not go with ${a.cert}`);
    const missing = serveWith('--tls-cert', join(dir, 'nope.crt'), '--tls-key', a.key);
    expect(missing.stderr).toContain(`--tls-cert: ${join(dir, 'nope.crt')}: ENOENT`);
    const alone = serveWith('--tls-cert', a.cert);
    expect(alone.stderr).toContain('--tls-cert and --tls-key go together');
    // An origin no browser sends (a capital, a default port) would never match: refused, with the one it sends.
    const origin = serveWith('--cors-origins', 'https://ok.example,https://UI.example.com:443');
    expect(origin.code).toBe(1);
    expect(origin.stderr).toContain(
      "--cors-origins: 'https://UI.example.com:443' is not an origin as a browser sends it (it sends 'https://ui.example.com')",
    );
    writeFileSync(join(dir, 'not.pem'), 'hello');
    const notPem = serveWith('--tls-cert', join(dir, 'not.pem'), '--tls-key', a.key);
    expect(notPem.stderr).toContain('no PEM certificate in the file');
    // Proxies to believe: addresses, CIDRs or hops; anything else named.
    const proxy = serveWith('--trust-proxy', '10.0.0.0/8,router.example');
    expect(proxy.code).toBe(1);
    expect(proxy.stderr).toContain("--trust-proxy: 'router.example' is not an address or a CIDR");
    expect(serveWith('--trust-proxy', '10.0.0.0/33').stderr).toContain("'10.0.0.0/33' is not an address");
    // A number of hops would believe whatever a client puts first: refused.
    expect(serveWith('--trust-proxy', '1').stderr).toContain("--trust-proxy: '1' is not an address or a CIDR");
    expect(serveWith('--plan-rate-limit', '50').stderr).toMatch(/plan-rate-limit/);
  });
});
