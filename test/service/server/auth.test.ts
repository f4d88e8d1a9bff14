// Admin API authorization over HTTP (src/server/auth.ts, the token verifier of src/app/auth/): the 401/403
// matrix of every write, JWKS keys with rotation, and the rate limit per token subject. The claims a token
// must carry are in test/service/app/auth/tokenClaims.test.ts, the reads that need a token in auth.reads.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  api,
  clock,
  dirs,
  ladder,
  rec,
  secretFile,
  token,
  tokens,
  useLadderServer,
} from '../../support/adminServer.js';
import { startServer, tempDir } from '../../support/server.js';

useLadderServer();

describe('authorization', () => {
  const writes: Array<[string, string, string, unknown]> = [
    ['releases:write', 'POST', '/api/v1/releases', JSON.parse(rec('4.16.9', []))],
    ['releases:write', 'DELETE', '/api/v1/releases/amd64/4.16.3', undefined],
    ['channels:write', 'PUT', '/api/v1/channels/candidate-4.17', { versions: ['4.16.1'] }],
    ['channels:write', 'PUT', '/api/v1/internal-channels/candidate', { versions: ['4.16.1'] }],
    [
      'channels:write',
      'POST',
      '/api/v1/channels/stable-4.14/versions',
      { version: '4.15.1', force: true, reason: 'test' },
    ],
    ['channels:write', 'POST', '/api/v1/internal-channels/candidate/versions', { version: '4.16.1' }],
    ['channels:write', 'DELETE', '/api/v1/channels/stable-4.14/versions/4.14.1', undefined],
    ['channels:write', 'DELETE', '/api/v1/internal-channels/candidate/versions/4.14.1', undefined],
    ['risks:write', 'POST', '/api/v1/risks', { to: '4.16.1', from: '.*' }],
    ['risks:write', 'DELETE', '/api/v1/risks/nope', undefined],
  ];

  it('answers 401 without a token or with an expired, wrongly signed or wrong-audience one, 403 without the scope, and lets the right scope through', async () => {
    const expired = await token('releases:write,channels:write,risks:write', {
      ttl: '1m',
      now: new Date(clock.now() - 3600e3),
    });
    const wrongAudience = await token('releases:write,channels:write,risks:write', { audience: 'someone-else' });
    const forged = `${tokens.all!.slice(0, -4)}AAAA`;
    for (const [scope, method, path, body] of writes) {
      const label = `${method} ${path}`;
      expect((await api(method, path, body, '')).status, `${label} without token`).toBe(401);
      for (const [name, t] of [
        ['expired', expired],
        ['wrong audience', wrongAudience],
        ['forged', forged],
      ] as const) {
        const r = await api(method, path, body, t);
        expect(r.status, `${label} ${name}`).toBe(401);
        expect(r.body.kind).toBe('unauthorized');
      }
      const other = (['releases:write', 'channels:write', 'risks:write'] as const).filter((s) => s !== scope).join(',');
      const denied = await api(method, path, body, await token(other));
      expect(denied.status, `${label} wrong scope`).toBe(403);
      const allowed = await api(method, path, body, await token(scope));
      expect([200, 201, 404], `${label} right scope: ${JSON.stringify(allowed.body)}`).toContain(allowed.status);
    }
    const expiredReason = await api('POST', '/api/v1/releases', writes[0]![3], expired);
    expect(expiredReason.body.value).toBe('invalid token: expired');
  });

  it('verifies tokens against a JWKS with key rotation (RS256 and EdDSA by kid)', async () => {
    const d = tempDir();
    dirs.push(d);
    const rsa = await generateKeyPair('RS256', { extractable: true });
    const ed = await generateKeyPair('EdDSA', { extractable: true });
    const jwks = {
      keys: [
        { ...(await exportJWK(rsa.publicKey)), kid: 'old', alg: 'RS256' },
        { ...(await exportJWK(ed.publicKey)), kid: 'new', alg: 'EdDSA' },
      ],
    };
    writeFileSync(join(d.path, 'jwks.json'), JSON.stringify(jwks));
    const tree = join(d.path, 'tree');
    const s = await startServer({ graphData: ladder(tree), auth: { jwks: join(d.path, 'jwks.json') } });
    try {
      const sign = (alg: string, kid: string, key: CryptoKey): Promise<string> =>
        new SignJWT({ scope: 'channels:write' })
          .setProtectedHeader({ alg, kid })
          .setSubject('bob')
          .setIssuer('cincy')
          .setAudience('cincy-admin')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(key);
      for (const t of [await sign('RS256', 'old', rsa.privateKey), await sign('EdDSA', 'new', ed.privateKey)]) {
        const r = await fetch(`${s.url}/api/v1/internal-channels/candidate/versions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
          body: JSON.stringify({ version: '4.16.1' }),
        });
        expect([200, 201]).toContain(r.status);
      }
      const wrongKid = await sign('EdDSA', 'old', ed.privateKey);
      const r = await fetch(`${s.url}/api/v1/internal-channels/candidate/versions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${wrongKid}`, 'content-type': 'application/json' },
        body: JSON.stringify({ version: '4.16.1' }),
      });
      expect(r.status).toBe(401);
    } finally {
      await s.close();
    }
  });

  it('rate-limits writes per subject', async () => {
    const d = tempDir();
    dirs.push(d);
    const s = await startServer({ graphData: ladder(join(d.path, 'tree')), auth: { secretFile, rateLimit: 3 }, clock });
    try {
      const post = async (t: string): Promise<number> =>
        (
          await fetch(`${s.url}/api/v1/internal-channels/candidate/versions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
            body: JSON.stringify({ version: '4.16.1' }),
          })
        ).status;
      const alice = await token('channels:write', { subject: 'alice' });
      const bob = await token('channels:write', { subject: 'bob' });
      expect([await post(alice), await post(alice), await post(alice)]).not.toContain(429);
      expect(await post(alice)).toBe(429);
      expect(await post(bob)).not.toBe(429);
    } finally {
      await s.close();
    }
  });
});
