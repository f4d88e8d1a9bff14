// Errors raised before a request reaches a route (a URL or headers over the
// limit, a malformed URL or request, a request too slow) answer in the {kind, value} format too.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawConnection, requestHead } from '../../support/rawHttp.js';
import { startServer, tempDir, type TestServer } from '../../support/server.js';
import { writeTree } from '../../support/trees.js';

let server: TestServer;
const dir = tempDir();
beforeAll(async () => {
  server = await startServer({
    graphData: writeTree(join(dir.path, 'tree')),
    limits: { requestTimeout: 1, headersTimeout: 1 },
  });
});
afterAll(async () => {
  await server.close();
  dir.remove();
});

/** Sends `raw` on a new connection; the answer (at most 5 s), with its body parsed as JSON. */
async function answer(raw: string): Promise<{ status: number; body: unknown }> {
  const c = await RawConnection.open(server.url);
  try {
    c.write(raw);
    const r = await c.response(5000);
    return { status: r.status, body: JSON.parse(r.body) };
  } finally {
    c.destroy();
  }
}

const errorOf = (kind: string) => ({ kind, value: expect.any(String) });

describe('reliability finding 14: errors before routing are {kind, value}', () => {
  it('answers 414 to a URL over the limit and to a path segment over 200 characters', async () => {
    const longUrl = await answer(requestHead('GET', `/graph?channel=${'a'.repeat(20_000)}`));
    expect(longUrl).toEqual({ status: 414, body: errorOf('invalid_request') });
    const segment = await answer(requestHead('GET', `/api/v1/releases/amd64/4.16.${'9'.repeat(300)}`));
    expect(segment).toEqual({ status: 414, body: errorOf('invalid_request') });
  });

  it('answers 431 to headers over the limit', async () => {
    const r = await answer(requestHead('GET', '/graph?channel=stable-4.1', { 'x-big': 'b'.repeat(20_000) }));
    expect(r).toEqual({ status: 431, body: errorOf('invalid_request') });
  });

  it('answers 400 to a malformed URL and to a request that is not HTTP', async () => {
    const percent = await answer(requestHead('GET', '/api/v1/releases/amd64/%E0%A4%A'));
    expect(percent).toEqual({ status: 400, body: errorOf('invalid_request') });
    expect((percent.body as { value: string }).value).toContain('malformed URL');
    const spaces = await answer('GET /graph channel HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(spaces).toEqual({ status: 400, body: errorOf('invalid_request') });
  });

  it('answers 408 to a request whose headers do not arrive within the timeout', async () => {
    const c = await RawConnection.open(server.url);
    try {
      c.write('GET /graph?channel=stable-4.1 HTTP/1.1\r\nHost: x\r\n'); // and no more
      const r = await c.response(10_000);
      expect({ status: r.status, body: JSON.parse(r.body) }).toEqual({ status: 408, body: errorOf('request_timeout') });
    } finally {
      c.destroy();
    }
  });
});
