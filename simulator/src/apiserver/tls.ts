// A certificate authority and a server certificate for the mock cluster's HTTPS, made with the
// openssl command (Node can read certificates but not issue them). Kept next to the state, so a
// restarted cluster keeps the CA its kubeconfig names.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ServerTls {
  ca: string;
  cert: string;
  key: string;
}

export function ensureServerTls(dir: string, host: string): ServerTls {
  mkdirSync(dir, { recursive: true });
  const file = (n: string): string => join(dir, n);
  if (!existsSync(file('server.crt'))) {
    const openssl = (args: string[]): void =>
      void execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    try {
      openssl([
        'req',
        '-x509',
        ...ec,
        '-keyout',
        file('ca.key'),
        '-out',
        file('ca.crt'),
        '-days',
        '3650',
        '-subj',
        '/CN=cincy-mock-cluster-ca',
      ]);
      openssl(['req', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', `/CN=${host}`]);
      const san = /^[\d.]+$/.test(host) ? `IP:${host}` : `DNS:${host}`;
      writeFileSync(file('san.ext'), `subjectAltName=${san},DNS:localhost,IP:127.0.0.1\n`);
      openssl([
        'x509',
        '-req',
        '-in',
        file('server.csr'),
        '-CA',
        file('ca.crt'),
        '-CAkey',
        file('ca.key'),
        '-CAcreateserial',
        '-out',
        file('server.crt'),
        '-days',
        '3650',
        '-extfile',
        file('san.ext'),
      ]);
    } catch (err) {
      throw new Error(
        `--tls: making a certificate with openssl failed: ${(err as Error & { stderr?: Buffer }).stderr?.toString() || (err as Error).message}`,
      );
    }
  }
  return {
    ca: readFileSync(file('ca.crt'), 'utf8'),
    cert: readFileSync(file('server.crt'), 'utf8'),
    key: readFileSync(file('server.key'), 'utf8'),
  };
}
