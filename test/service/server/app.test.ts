// A write is authorized, and a request routed, from its headers before any byte
// of its body is read; every route has a small body limit but the release list, which only an
// authorized writer reaches.
import { afterEach, describe, expect, it } from 'vitest';
import { api, server, tokens, useLadderServer } from '../../support/adminServer.js';
import { RawConnection, requestHead } from '../../support/rawHttp.js';

useLadderServer();

const MiB = 1024 * 1024;
const open: RawConnection[] = [];
afterEach(() => open.splice(0).forEach((c) => c.destroy()));

/** Declares an 8 MiB JSON body, sends only its first 64 KiB, and waits (at most 5 s) for the answer. */
async function partialBigBody(method: string, path: string, headers: Record<string, string> = {}) {
  const c = await RawConnection.open(server.url);
  open.push(c);
  c.write(requestHead(method, path, { 'content-type': 'application/json', 'content-length': 8 * MiB, ...headers }));
  c.write(Buffer.alloc(64 * 1024, ' '));
  return c.response(5000);
}

describe('reliability finding 1: bodies are read only when the headers allow it', () => {
  it('answers 401 to a write without a token before its 8 MiB body is sent', async () => {
    for (const [method, path] of [
      ['POST', '/api/v1/releases'],
      ['PUT', '/api/v1/channels/stable-4.16'],
      ['POST', '/api/v1/releases/amd64/4.16.1/signatures'],
    ] as const) {
      const r = await partialBigBody(method, path);
      expect(r.status, `${method} ${path}`).toBe(401);
      expect(JSON.parse(r.body)).toMatchObject({ kind: 'unauthorized' });
    }
  });

  it('closes the connection after an answer given before the body arrived, instead of reading the rest', async () => {
    const c = await RawConnection.open(server.url);
    open.push(c);
    c.write(requestHead('POST', '/api/v1/releases', { 'content-type': 'application/json', 'content-length': 8 * MiB }));
    c.write(Buffer.alloc(64 * 1024, ' '));
    const r = await c.response(5000);
    expect(r.status).toBe(401);
    expect(r.headers.toLowerCase()).toContain('connection: close');
    await c.until((conn) => conn.closed, 5000); // not kept open to drain 8 MiB nobody will read
    // A body sent whole keeps its connection for the next request.
    const whole = await RawConnection.open(server.url);
    open.push(whole);
    whole.write(requestHead('POST', '/api/v1/releases', { 'content-type': 'application/json', 'content-length': 2 }));
    whole.write('[]');
    const answered = await whole.response(5000);
    expect(answered.status).toBe(401);
    expect(answered.headers.toLowerCase()).not.toContain('connection: close');
  });

  it('answers 404 to an unknown path, and 405 to a method a path is not served for, before an 8 MiB body is sent', async () => {
    const r = await partialBigBody('POST', '/api/v1/nothing-here');
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body)).toMatchObject({ kind: 'does_not_exist' });
    const method = await partialBigBody('PATCH', '/api/v1/releases', { authorization: `Bearer ${tokens.all}` });
    expect(method.status).toBe(405);
  });

  it('answers 413 to an authorized body over a small-limit route, and reads a large release list', async () => {
    const versions = Array.from({ length: 10_000 }, (_, i) => `4.16.${i}`); // about 100 KiB
    const tooLarge = await api('PUT', '/api/v1/channels/stable-4.16', { versions });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toEqual({ kind: 'invalid_request', value: 'request body over 65536 bytes' });

    const list = Array.from({ length: 5000 }, (_, i) => ({ kind: 'cincinnati-metadata-v0', version: `4.99.${i}` }));
    expect(JSON.stringify(list).length).toBeGreaterThan(200 * 1024);
    const read = await api('POST', '/api/v1/releases', list);
    expect(read.status).toBe(400); // read and validated: the records lack fields
    expect(read.body.kind).toBe('invalid_request');
  });
});
