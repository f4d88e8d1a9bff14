// TLS from a certificate file and a key file: the PEM files are read and checked at start (a
// certificate and a key that belong together), then watched; new files (cert-manager renewing, a
// Kubernetes Secret updated) are taken by the listening server without a restart. Files that do not
// load, or do not match, are refused with the reason logged, and the certificate in use stays.
import { X509Certificate } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import type { Server as HttpsServer } from 'node:https';
import { createSecureContext as tlsContext } from 'node:tls';
import { certificateProblem } from '../certificateProblem.js';
import type { Log } from '../log.js';

export interface TlsFiles {
  cert: string;
  key: string;
}

export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  /** When the certificate (the first of the chain) expires. */
  notAfter: Date;
  /** When it begins to be valid. */
  notBefore: Date;
  subject: string;
}

export class TlsError extends Error {
  constructor(
    /** The file at fault: the certificate's or the key's. */
    readonly which: keyof TlsFiles,
    message: string,
  ) {
    super(message);
  }
}

/** Reads and checks the pair; a TlsError naming the file when it cannot serve. */
export function loadTls(files: TlsFiles): TlsMaterial {
  const read = (which: keyof TlsFiles): Buffer => {
    try {
      return readFileSync(files[which]);
    } catch (err) {
      throw new TlsError(which, `${files[which]}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  };
  const cert = read('cert');
  const key = read('key');
  if (!cert.includes('-----BEGIN CERTIFICATE-----'))
    throw new TlsError('cert', `${files.cert}: no PEM certificate in the file`);
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key.toString('latin1')))
    throw new TlsError('key', `${files.key}: no PEM private key in the file`);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (err) {
    throw new TlsError('cert', `${files.cert}: ${(err as Error).message}`);
  }
  try {
    // Fails when the key is not the certificate's (or cannot be read).
    tlsContext({ cert, key });
  } catch (err) {
    throw new TlsError('key', `${files.key} does not go with ${files.cert}: ${(err as Error).message}`);
  }
  return {
    cert,
    key,
    notAfter: new Date(x509.validTo),
    notBefore: new Date(x509.validFrom),
    subject: x509.subject.replace(/\n/g, ', '),
  };
}

/**
 * Watches the two files (polled, as a Secret's files are swapped by a rename that inotify on the old
 * path misses) and gives `server` each new pair that loads; returns the stop. `current` follows what
 * is served (for the metrics).
 */
export function watchTls(
  server: HttpsServer,
  files: TlsFiles,
  current: { material: TlsMaterial },
  log: Pick<Log, 'info' | 'warn' | 'error'>,
  intervalMs = 2000,
): () => void {
  let pending: NodeJS.Timeout | undefined;
  const reload = (): void => {
    // Both files change one after the other: wait for the second before reading.
    clearTimeout(pending);
    pending = setTimeout(() => {
      let next: TlsMaterial;
      try {
        next = loadTls(files);
      } catch (err) {
        log.error({ reason: (err as Error).message }, 'new TLS files refused; the certificate in use stays');
        return;
      }
      if (next.cert.equals(current.material.cert) && next.key.equals(current.material.key)) return;
      server.setSecureContext({ cert: next.cert, key: next.key });
      current.material = next;
      log.info({ subject: next.subject, notAfter: next.notAfter.toISOString() }, 'TLS certificate reloaded');
      const problem = certificateProblem(next, Date.now());
      if (problem) log.warn({}, problem);
    }, 200);
    pending.unref();
  };
  const options = { interval: intervalMs, persistent: false };
  watchFile(files.cert, options, reload);
  watchFile(files.key, options, reload);
  return () => {
    clearTimeout(pending);
    unwatchFile(files.cert, reload);
    unwatchFile(files.key, reload);
  };
}
