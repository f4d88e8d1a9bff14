// The claims an admin token must carry (src/app/auth/tokenClaims.ts), over HTTP: each refusal a 401 naming
// the claim. The 401/403 matrix of every write, JWKS keys and the rate limit are in
// test/service/server/auth.test.ts.
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { readSecret } from '../../../../src/app/auth/verificationKeys.js';
import { api, clock, secretFile, useLadderServer } from '../../../support/adminServer.js';

useLadderServer();

describe('reliability finding 11: token claims', () => {
  /** A token signed with the server's secret carrying exactly `claims` (iss and aud added). */
  const signed = (claims: Record<string, unknown>): Promise<string> =>
    new SignJWT({ iss: 'cincy', aud: 'cincy-admin', ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(readSecret(secretFile));
  const now = (): number => Math.floor(clock.now() / 1000);
  const valid = (): Record<string, unknown> => ({
    sub: 'alice',
    scope: 'channels:write',
    iat: now(),
    exp: now() + 3600,
  });
  const promote = async (t: string): Promise<{ status: number; body: { kind?: string; value?: string } }> =>
    api('POST', '/api/v1/internal-channels/candidate/versions', { version: '4.16.1' }, t);

  it('refuses with 401 naming the claim a token whose sub, iat, exp or scope is missing, mistyped or out of bounds', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['sub an object', { sub: { name: 'alice' } }, 'claim sub'],
      ['sub an object that cannot be a string', { sub: { toString: 1 } }, 'claim sub'],
      ['sub empty', { sub: '' }, 'claim sub'],
      ['sub a number', { sub: 42 }, 'claim sub'],
      ['sub too long', { sub: 'a'.repeat(257) }, 'claim sub'],
      ['sub with control characters', { sub: 'al\u001b[31mice' }, 'claim sub'],
      ['sub missing', { sub: undefined }, 'claim sub'],
      ['exp far away', { exp: 1e20 }, 'claim exp'],
      ['lifetime over a year', { exp: now() + 367 * 86400 }, 'claim exp'],
      ['exp missing', { exp: undefined }, 'claim exp'],
      ['exp a string', { exp: String(now() + 60) }, 'claim exp'],
      ['iat in the future', { iat: now() + 3600, exp: now() + 7200 }, 'claim iat'],
      ['iat missing', { iat: undefined }, 'claim iat'],
      ['scope an object', { scope: { 'channels:write': true } }, 'claim scope'],
      ['scope a number', { scope: 7 }, 'claim scope'],
      ['scp a list holding a number', { scope: undefined, scp: ['channels:write', 7] }, 'claim scp'],
    ];
    for (const [name, change, claim] of cases) {
      const r = await promote(await signed({ ...valid(), ...change }));
      expect.soft(r.status, `${name}: ${JSON.stringify(r.body)}`).toBe(401);
      expect.soft(r.body.kind, name).toBe('unauthorized');
      expect.soft(r.body.value, name).toContain(claim);
    }
  });

  it('accepts a lifetime of a year, an iat a little ahead of the clock, and scopes from scp', async () => {
    for (const change of [
      { exp: now() + 366 * 86400 },
      { iat: now() + 30 },
      { scope: undefined, scp: ['channels:write'] },
      { scope: undefined, scp: 'channels:write releases:write' },
    ]) {
      const r = await promote(await signed({ ...valid(), ...change }));
      expect([200, 201], `${JSON.stringify(change)}: ${JSON.stringify(r.body)}`).toContain(r.status);
    }
  });
});
