// When a served TLS certificate is one clients refuse (src/certificateProblem.ts): expired,
// or not valid yet; nothing to say in between.
import { describe, expect, it } from 'vitest';
import { certificateProblem } from '../../src/certificateProblem.js';

describe('certificateProblem', () => {
  const m = {
    subject: 'CN=x',
    notBefore: new Date('2026-01-01T00:00:00Z'),
    notAfter: new Date('2026-04-01T00:00:00Z'),
  };
  it('says an expired or not yet valid certificate, and nothing of a valid one', () => {
    expect(certificateProblem(m, Date.parse('2026-02-01T00:00:00Z'))).toBeUndefined();
    expect(certificateProblem(m, Date.parse('2026-04-01T00:00:01Z'))).toBe(
      'the TLS certificate (CN=x) expired at 2026-04-01T00:00:00.000Z: clients refuse it',
    );
    expect(certificateProblem(m, Date.parse('2025-12-31T23:59:59Z'))).toBe(
      'the TLS certificate (CN=x) is not valid before 2026-01-01T00:00:00.000Z: clients refuse it',
    );
  });
});
