// When a TLS certificate served is one clients refuse: expired, or not valid yet. Said by serve at start
// and at each reload (server/tls.ts), and on /readyz.

/** The dates and subject of a certificate, as server/tls.ts reads them. */
export interface CertificateDates {
  notAfter: Date;
  notBefore: Date;
  subject: string;
}

/**
 * Why clients will refuse the certificate at `now` (expired, or not valid yet), or undefined. It is
 * served all the same (the server does not stop), and said at start, at each reload and on /readyz.
 */
export function certificateProblem(m: CertificateDates, now: number): string | undefined {
  if (now > m.notAfter.getTime())
    return `the TLS certificate (${m.subject}) expired at ${m.notAfter.toISOString()}: clients refuse it`;
  if (now < m.notBefore.getTime())
    return `the TLS certificate (${m.subject}) is not valid before ${m.notBefore.toISOString()}: clients refuse it`;
  return undefined;
}
