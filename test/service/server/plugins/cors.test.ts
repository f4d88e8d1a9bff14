// CORS over real HTTP (src/server/plugins/cors.ts): any origin's page reads the public routes, token or
// not; the reads that take a token, and their preflights, get CORS headers only for an origin
// --cors-origins names.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../../../src/cli/token.js';
import { BUNDLED_GRAPH_DATA } from '../../../../src/settings.js';
import { startServer, tempDir, type TestServer } from '../../../support/server.js';

const CONSOLE = 'https://console.example.com';
const ELSEWHERE = 'https://pages.example.net';

describe('CORS', () => {
  let server: TestServer;
  let token: string;
  const dir = tempDir();

  beforeAll(async () => {
    const secretFile = join(dir.path, 'secret');
    writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    server = await startServer({ graphData: BUNDLED_GRAPH_DATA, auth: { secretFile }, corsOrigins: [CONSOLE] });
    token = await createToken({ adminJwtSecretFile: secretFile, scope: 'fleet:read', ttl: '1h', subject: 's' });
  });
  afterAll(async () => {
    await server?.close();
    dir.remove();
  });

  const allowedOrigin = async (path: string, headers: Record<string, string>, method = 'GET') => {
    const res = await fetch(`${server.url}${path}`, { method, headers });
    await res.arrayBuffer();
    return res.headers.get('access-control-allow-origin');
  };

  it('lets any page read the public routes, whatever it sends', async () => {
    expect(await allowedOrigin('/graph?channel=stable-4.16', { origin: ELSEWHERE })).toBe(ELSEWHERE);
    expect(await allowedOrigin('/api/v1/catalog', { origin: 'null' })).toBe('null');
    // A public answer is the same with a token: a shared cache keyed on Origin cannot be made to drop it.
    const withAuth = { origin: ELSEWHERE, authorization: 'Bearer x' };
    expect(await allowedOrigin('/graph?channel=stable-4.16', withAuth)).toBe(ELSEWHERE);
  });

  it('answers a request with a token, and its preflight, for the configured origins only', async () => {
    const withToken = (origin: string) => ({ origin, authorization: `Bearer ${token}` });
    expect(await allowedOrigin('/api/v1/fleet', withToken(CONSOLE))).toBe(CONSOLE);
    expect(await allowedOrigin('/api/v1/fleet', withToken(ELSEWHERE))).toBeNull();
    expect(await allowedOrigin('/api/v1/fleet', withToken('null'))).toBeNull();
    expect(await allowedOrigin('/api/v1/fleet/clusters?limit=1', { origin: ELSEWHERE })).toBeNull();
    expect(await allowedOrigin('/api/v1/internal-channels', withToken(CONSOLE))).toBe(CONSOLE);
    const preflight = (origin: string) => ({
      origin,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'content-type, Authorization',
    });
    expect(await allowedOrigin('/api/v1/audit', preflight(CONSOLE), 'OPTIONS')).toBe(CONSOLE);
    expect(await allowedOrigin('/api/v1/audit', preflight(ELSEWHERE), 'OPTIONS')).toBeNull();
  });
});
