// A slow client is cut off by the request and headers timeouts, and connections over the cap are closed
// while the open ones are served, on a server in this process. The limits read from flags are in
// test/unit/config.test.ts; SIGTERM closing slow and idle connections of a `cincy serve` process in
// test/e2e/http-shutdown.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToken } from '../../../src/cli/token.js';
import { useCleanup } from '../../support/cleanup.js';
import { requestHead, useRawConnections } from '../../support/rawHttp.js';
import { startServer, type TestServer } from '../../support/server.js';
import { writeTree } from '../../support/trees.js';

const cleanup = useCleanup();
const { connect, trickle } = useRawConnections(cleanup);

async function server(limits: Parameters<typeof startServer>[0]['limits']): Promise<TestServer & { token: string }> {
  const dir = cleanup.dir();
  const secretFile = join(dir, 'secret');
  writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
  const s = await startServer({ graphData: writeTree(join(dir, 'tree')), auth: { secretFile }, limits });
  cleanup.add(() => s.close());
  const token = await createToken(
    { adminJwtSecretFile: secretFile, scope: 'releases:write', ttl: '1h', subject: 'slow' },
    new Date(),
  );
  return { ...s, token };
}

describe('reliability finding 2: timeouts and caps', () => {
  it('cuts off a body or headers sent 2 bytes at a time once the request timeout passes', async () => {
    const s = await server({ requestTimeout: 1, headersTimeout: 1 });
    const body = JSON.stringify([{ version: '4.1.9' }]).padEnd(2000, ' '); // 100 s at this pace
    const slowBody = await connect(s.url);
    slowBody.write(
      requestHead('POST', '/api/v1/releases', {
        authorization: `Bearer ${s.token}`,
        'content-type': 'application/json',
        'content-length': body.length,
      }),
    );
    trickle(slowBody, body);
    const slowHeaders = await connect(s.url);
    trickle(slowHeaders, requestHead('GET', '/graph?channel=stable-4.1', { 'x-padding': 'x'.repeat(2000) }));
    const silent = await connect(s.url);

    for (const c of [slowBody, slowHeaders, silent]) {
      await c.until((x) => x.closed, 10_000);
      expect(c.received === '' || c.received.startsWith('HTTP/1.1 408 '), c.received).toBe(true);
    }
    expect(slowBody.received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes connections over the cap as they come, and serves the open ones', async () => {
    const s = await server({ maxConnections: 2 });
    const livez = requestHead('GET', '/livez');
    const kept = [await connect(s.url), await connect(s.url)];
    for (const c of kept) {
      c.write(livez);
      expect((await c.response(5000)).status).toBe(200);
    }
    const refused = await connect(s.url);
    refused.write(livez);
    await refused.until((c) => c.closed, 5000);
    expect(refused.received).toBe('');
    for (const c of kept) {
      c.received = '';
      c.write(livez);
      expect((await c.response(5000)).status).toBe(200);
    }
  });
});
