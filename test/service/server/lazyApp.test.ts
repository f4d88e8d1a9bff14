// Routes answered by an app made at their first request (src/server/lazyApp.ts), over a listening server: the
// app is made once, and again only after a build that failed; the server's hooks run first and their headers
// go out with the answer, which is streamed; a HEAD has the GET's length; errors and unknown paths are the
// API's answers; closing the server closes it.
import { request } from 'node:http';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { lazyRoutes } from '../../support/server.js';
import { useCleanup } from '../../support/cleanup.js';

const cleanup = useCleanup();

/** The app filled in lazily: an answer, a streamed one, a redirect, a failure, a file gone (callNotFound). */
async function fillIn(app: FastifyInstance, closed: string[]): Promise<void> {
  app.get('/lazy/answer', async (_request, reply) => reply.header('x-inner', 'yes').send({ made: true }));
  app.get('/lazy/stream', async (_request, reply) =>
    reply.type('text/plain').send(Readable.from(['a'.repeat(100_000), 'b'.repeat(100_000)])),
  );
  app.get('/lazy/moved', async (_request, reply) => reply.redirect('/lazy/answer'));
  app.get('/lazy/fails', async () => {
    throw new Error('a secret that must not reach the client');
  });
  app.get('/lazy/gone', async (_request, reply) => {
    reply.callNotFound();
    return reply;
  });
  app.get('/lazy/files/*', async (request) => ({ file: (request.params as { '*': string })['*'] }));
  // Not a URL the server hands over: never reached, however a handed-over path is written.
  app.get('/lazy/secret', async () => ({ secret: true }));
  app.addHook('onClose', async () => void closed.push('inner'));
}

/** GET of `path` exactly as written (fetch would resolve its dot segments first). */
function getAsWritten(url: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    request({ host: hostname, port, path }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    })
      .on('error', reject)
      .end();
  });
}

const URLS = ['/lazy/answer', '/lazy/stream', '/lazy/moved', '/lazy/fails', '/lazy/gone', '/lazy/files/*'];

async function serverWith(build: (app: FastifyInstance) => Promise<void>, logged?: string[]) {
  const stream = { write: (line: string) => void logged?.push(line) };
  const server = Fastify(logged ? { logger: { level: 'error', stream } } : {});
  const seen: string[] = [];
  const ids: string[] = [];
  // A hook of the server's, as CORS sets its headers before the handler.
  server.addHook('onRequest', async (_request, reply) => void reply.header('x-server', 'first'));
  server.addHook(
    'onResponse',
    async (request, reply) => void seen.push(`${request.method} ${request.routeOptions.url} ${reply.statusCode}`),
  );
  server.addHook('onResponse', async (request) => void ids.push(request.id));
  lazyRoutes(server, URLS, build);
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  cleanup.add(() => server.close());
  return { server, url, seen, ids };
}

describe('service routes', () => {
  it('makes the app at the first request, once, and answers with the server hooks first', async () => {
    const closed: string[] = [];
    let builds = 0;
    const { server, url, seen } = await serverWith(async (app) => {
      builds += 1;
      await fillIn(app, closed);
    });
    expect(builds).toBe(0);
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => fetch(`${url}/lazy/answer`)));
    expect(builds).toBe(1);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers.get('x-inner')).toBe('yes');
      expect(res.headers.get('x-server')).toBe('first');
      expect(await res.json()).toEqual({ made: true });
    }
    // Counted under the server's own route, with the inner answer's status.
    expect(seen).toEqual(Array(5).fill('GET /lazy/answer 200'));

    const streamed = await fetch(`${url}/lazy/stream`);
    expect(streamed.headers.get('transfer-encoding')).toBe('chunked');
    expect((await streamed.text()).length).toBe(200_000);

    const get = await fetch(`${url}/lazy/answer`);
    const head = await fetch(`${url}/lazy/answer`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(await head.text()).toBe('');

    const moved = await fetch(`${url}/lazy/moved`, { redirect: 'manual' });
    expect(moved.status).toBe(302);
    expect(moved.headers.get('location')).toBe('/lazy/answer');

    const fails = await fetch(`${url}/lazy/fails`);
    expect(fails.status).toBe(500);
    expect(await fails.json()).toEqual({ kind: 'internal_error', value: 'internal server error' });

    const gone = await fetch(`${url}/lazy/gone`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ kind: 'does_not_exist', value: 'no such path: GET /lazy/gone' });
    // The path the server routed, as sent: its dot segments are not resolved on the way to another route.
    for (const path of ['/lazy/files/../secret', '/lazy/files/%2e%2e/secret', '/lazy/files/..%5csecret']) {
      const dotted = await getAsWritten(url, path);
      expect(dotted.status, path).toBe(200);
      expect(JSON.parse(dotted.body), path).toHaveProperty('file');
    }
    expect(builds).toBe(1);

    await server.close();
    expect(closed).toEqual(['inner']);
  });

  it('answers 500 when the app cannot be made, and makes it again at the next request', async () => {
    let builds = 0;
    const { url } = await serverWith(async (app) => {
      builds += 1;
      if (builds === 1) throw new Error('the plugin failed to load');
      await fillIn(app, []);
    });
    expect((await fetch(`${url}/lazy/answer`)).status).toBe(500);
    const again = await fetch(`${url}/lazy/answer`);
    expect(again.status).toBe(200);
    expect(builds).toBe(2);
  });

  it('closes a connection whose large body it leaves unread, and logs under the server request id', async () => {
    const logged: string[] = [];
    const { url, ids } = await serverWith((app) => fillIn(app, []), logged);
    // A GET announcing a body of no stated length, sent in part: answered at once, and the connection closed.
    const { hostname, port } = new URL(url);
    const connection = await new Promise<string | undefined>((resolve, reject) => {
      const req = request({
        host: hostname,
        port,
        path: '/lazy/answer',
        method: 'GET',
        headers: { 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        resolve(res.headers.connection);
        res.resume();
      });
      req.on('error', reject);
      req.write('x'.repeat(64 * 1024));
    });
    expect(connection).toBe('close');

    const fails = await fetch(`${url}/lazy/fails`);
    expect(fails.status).toBe(500);
    const failed = logged
      .map((line) => JSON.parse(line) as { reqId?: string; msg?: string })
      .find((l) => l.msg === 'request failed');
    expect(failed?.reqId).toBe(ids.at(-1));
  });
});
