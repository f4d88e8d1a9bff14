// The graph fast path (src/server/graphFastPath.ts) answers exactly as the fastify route: two servers
// on one graph, one with the fast path and one without, get the same matrix of requests (paths, query
// strings, Accept, Accept-Encoding, If-None-Match, GET and HEAD, Origin, repeated headers), and every
// answer must be the same status, the same headers in the same order (but Date) and the same bytes.
// The fast path must take the plain cached requests and leave the rest (errors, CORS) to fastify.
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawConnection, requestHead } from '../../support/rawHttp.js';
import { startServer, tempDir, watchGraphFastPath, type TestServer } from '../../support/server.js';
import { writeTree } from '../../support/trees.js';

type RequestHeaders = Record<string, string | string[]>;
const CHANNEL = 'stable-4.1';
const dir = tempDir();
// Two servers on the same tree (so the same graph, the same bytes and ETags): one with the fast path.
let fast: TestServer;
let routed: TestServer;
const answered = watchGraphFastPath();
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  const graphData = writeTree(join(dir.path, 'tree'));
  fast = await startServer({ graphData });
  routed = await startServer({ graphData, graphFastPath: false });
});
afterAll(async () => {
  agent.destroy();
  await fast?.close();
  await routed?.close();
  dir.remove();
});

interface Answer {
  status: number;
  statusMessage: string;
  /** Names and values as written, in order, without Date. */
  headers: string[];
  body: Buffer;
}

function send(base: string, method: string, path: string, headers: RequestHeaders): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = res.rawHeaders;
        const kept: string[] = [];
        for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() !== 'date') kept.push(raw[i]!, raw[i + 1]!);
        resolve({
          status: res.statusCode!,
          statusMessage: res.statusMessage!,
          headers: kept,
          body: Buffer.concat(chunks),
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

interface Case {
  method: string;
  path: string;
  headers: RequestHeaders;
}

/** Sends a case to both servers; their answers, and whether the fast path answered it. */
async function both(c: Case): Promise<{ viaFast: Answer; viaRoute: Answer; tookFastPath: boolean }> {
  const before = answered.mock.results.length;
  const viaFast = await send(fast.url, c.method, c.path, c.headers);
  const results = answered.mock.results.slice(before);
  expect(results, `${c.method} ${c.path}: the fast path was asked once`).toHaveLength(1);
  const tookFastPath = results[0]!.value === true;
  const viaRoute = await send(routed.url, c.method, c.path, c.headers);
  expect(answered.mock.results.length, 'the server without the fast path never asks it').toBe(before + 1);
  return { viaFast, viaRoute, tookFastPath };
}

const PATHS = ['/graph', '/v1/graph', '/api/upgrades_info/graph', '/api/upgrades_info/v1/graph'];
const ACCEPTS = [
  undefined,
  'application/json',
  'application/vnd.redhat.cincinnati.v1+json',
  'application/json; charset=utf-8',
  'text/plain;q=0.5, application/json;q=0.9',
  '*/*',
  'text/html', // 406
  'application/json;q=0', // 406
  '', // 406
];
const ENCODINGS = [undefined, 'gzip', 'br', 'identity', 'gzip;q=0', 'br;q=1, gzip;q=0.5', 'deflate', '*;q=0'];

const headersOf = (accept?: string, encoding?: string, extra: RequestHeaders = {}): RequestHeaders => ({
  ...(accept !== undefined && { accept }),
  ...(encoding !== undefined && { 'accept-encoding': encoding }),
  ...extra,
});

describe('the graph fast path', () => {
  it('answers every Accept and Accept-Encoding, GET and HEAD, as the route does, and takes the cached ones', async () => {
    let took = 0;
    for (const method of ['GET', 'HEAD'])
      for (const accept of ACCEPTS)
        for (const encoding of ENCODINGS) {
          const c = { method, path: `/graph?channel=${CHANNEL}`, headers: headersOf(accept, encoding) };
          const { viaFast, viaRoute, tookFastPath } = await both(c);
          const what = `${method} Accept ${String(accept)} Accept-Encoding ${String(encoding)}`;
          expect(viaFast, what).toEqual(viaRoute);
          // Every 200 is the fast path's; a 406 is the route's.
          expect(tookFastPath, what).toBe(viaRoute.status === 200);
          if (tookFastPath) took += 1;
        }
    expect(took).toBeGreaterThan(50);
  });

  it('answers If-None-Match with 304 or 200 as the route does, for GET and HEAD', async () => {
    for (const encoding of [undefined, 'gzip', 'br']) {
      const first = await send(routed.url, 'GET', `/graph?channel=${CHANNEL}`, headersOf('application/json', encoding));
      const etag = first.headers[first.headers.findIndex((h) => h.toLowerCase() === 'etag') + 1]!;
      expect(etag).toMatch(/^"/);
      for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*', '"other"', ''])
        for (const method of ['GET', 'HEAD']) {
          const c = {
            method,
            path: `/graph?channel=${CHANNEL}`,
            headers: headersOf('application/json', encoding, { 'if-none-match': inm }),
          };
          const { viaFast, viaRoute, tookFastPath } = await both(c);
          const what = `${method} ${String(encoding)} If-None-Match ${inm}`;
          expect(viaFast, what).toEqual(viaRoute);
          expect(viaRoute.status, what).toBe(inm === '"other"' || inm === '' ? 200 : 304);
          expect(tookFastPath, what).toBe(true);
        }
    }
  });

  it('answers every path and query string as the route does, and leaves errors and odd queries to it', async () => {
    const queries: Array<[string, boolean]> = [
      [`channel=${CHANNEL}`, true],
      [`channel=${CHANNEL}&arch=amd64`, true],
      [`arch=amd64&channel=${CHANNEL}&id=8f2c1f6e-3b0a-4c1e-9d4f-1a2b3c4d5e6f&version=4.1.0`, true],
      [`channel=${CHANNEL}&id=1&id=2&foo`, true], // unknown parameters are ignored, repeated or bare
      [`channel=${CHANNEL}&id=1&id=2&id=3&version=a&version=b&version=c`, true], // lists, grown in place
      ['channel=stable-9.9', true], // a well-formed unknown channel: an empty graph
      [`channel=${CHANNEL}&arch=ppc64le`, true], // an unknown arch: an empty graph
      ['channel=stable%2D4.1', false], // percent-encoded: fastify decodes it
      [`channel=${CHANNEL}&ch%61nnel=${CHANNEL}`, false], // a key that decodes to channel: 400, twice
      [`channel=${CHANNEL}&%61rch=ppc64le`, false], // a key that decodes to arch: an empty graph
      [`channel=${CHANNEL}&channel=${CHANNEL}`, false], // 400, given more than once
      [`channel=${CHANNEL}&arch=amd64&arch=amd64`, false],
      ['channel=', false], // 400, missing
      ['channel', false],
      ['arch=amd64', false],
      ['', false],
      ['channel=x:y', false], // 400, invalid
      [`channel=${CHANNEL}&arch=AMD_64`, false],
      [`channel=${'a'.repeat(300)}`, true],
      [`channel=${CHANNEL}+`, false], // + is a space to fastify: invalid
    ];
    for (const path of [...PATHS, '/graph/', '/GRAPH', '/graph//'])
      for (const [query, plain] of queries)
        for (const method of ['GET', 'HEAD']) {
          const c = { method, path: query ? `${path}?${query}` : path, headers: headersOf('application/json', 'gzip') };
          const { viaFast, viaRoute, tookFastPath } = await both(c);
          const what = `${method} ${c.path}`;
          expect(viaFast, what).toEqual(viaRoute);
          expect(tookFastPath, what).toBe(plain && PATHS.includes(path));
          if (tookFastPath) expect(viaRoute.status, what).toBe(200);
        }
  });

  it('leaves CORS requests to fastify, and reads repeated headers as fastify does, with the same answers', async () => {
    const cases: Array<[RequestHeaders, boolean]> = [
      [{ accept: 'application/json', origin: 'https://console.example' }, false],
      [{ accept: 'application/json', Origin: 'null' }, false],
      [{ accept: ['application/json', 'text/html'] }, true],
      [{ accept: ['text/html', 'text/plain'] }, false], // 406
      [{ accept: 'application/json', 'accept-encoding': ['gzip', 'br'] }, true],
      [{ accept: 'application/json', 'if-none-match': ['"a"', '"b"'] }, true],
    ];
    for (const [headers, plain] of cases)
      for (const method of ['GET', 'HEAD']) {
        const c = { method, path: `/graph?channel=${CHANNEL}`, headers };
        const { viaFast, viaRoute, tookFastPath } = await both(c);
        expect(viaFast, JSON.stringify(headers)).toEqual(viaRoute);
        expect(tookFastPath, JSON.stringify(headers)).toBe(plain);
      }
    const cors = await send(fast.url, 'GET', `/graph?channel=${CHANNEL}`, cases[0]![0]);
    expect(cors.headers).toContain('https://console.example');
  });

  it('leaves a request with a body to fastify, which closes the connection when a large one is unread', async () => {
    const cases: Array<[length: number, sent: number]> = [
      [10, 10],
      [200_000, 1000],
    ];
    for (const [length, bytes] of cases) {
      const answers = [];
      for (const base of [fast.url, routed.url]) {
        const c = await RawConnection.open(base);
        const before = answered.mock.results.length;
        c.write(
          requestHead('GET', `/graph?channel=${CHANNEL}`, { Accept: 'application/json', 'Content-Length': length }) +
            'x'.repeat(bytes),
        );
        const r = await c.response(5000);
        c.destroy();
        if (base === fast.url) expect(answered.mock.results.slice(before).map((x) => x.value)).toEqual([false]);
        answers.push({ status: r.status, headers: r.headers.replace(/\r\nDate: [^\r]*/i, ''), body: r.body });
      }
      expect(answers[0], `Content-Length ${length}`).toEqual(answers[1]);
      expect(answers[0]!.status).toBe(200);
      expect(/\r\nconnection: close/i.test(answers[0]!.headers), `Content-Length ${length}`).toBe(length > 64 * 1024);
    }
  });

  it('reads header names in any case', async () => {
    const { viaFast, viaRoute, tookFastPath } = await both({
      method: 'GET',
      path: `/graph?channel=${CHANNEL}`,
      headers: { ACCEPT: 'application/json', 'Accept-ENCODING': 'gzip' },
    });
    expect(viaFast).toEqual(viaRoute);
    expect(viaFast.headers).toContain('gzip');
    expect(tookFastPath).toBe(true);
  });

  it('counts its answers in /metrics under the route, method and status, as the route is counted', async () => {
    const counts = async (base: string): Promise<Map<string, number>> => {
      const text = (await send(base, 'GET', '/metrics', {})).body.toString();
      const lines = text.split('\n').filter((l) => /^cincy_http_request(s_total|_duration_seconds_count)\{/.test(l));
      return new Map(lines.map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]));
    };
    const delta = (after: Map<string, number>, before: Map<string, number>): Record<string, number> =>
      Object.fromEntries([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)]).filter(([, d]) => d !== 0));
    const deltas = [];
    for (const base of [fast.url, routed.url]) {
      const before = await counts(base);
      await send(base, 'GET', `/v1/graph?channel=${CHANNEL}`, { accept: 'application/json' });
      await send(base, 'HEAD', `/v1/graph?channel=${CHANNEL}`, { accept: 'application/json' });
      await send(base, 'GET', `/v1/graph?channel=${CHANNEL}`, { accept: 'application/json', 'if-none-match': '*' });
      await send(base, 'GET', '/v1/graph', { accept: 'application/json' });
      deltas.push(delta(await counts(base), before));
    }
    expect(deltas[0]).toEqual(deltas[1]);
    expect(deltas[0]).toEqual({
      'cincy_http_requests_total{route="/v1/graph",method="GET",status="200"}': 1,
      'cincy_http_requests_total{route="/v1/graph",method="HEAD",status="200"}': 1,
      'cincy_http_requests_total{route="/v1/graph",method="GET",status="304"}': 1,
      'cincy_http_requests_total{route="/v1/graph",method="GET",status="400"}': 1,
      'cincy_http_requests_total{route="/metrics",method="GET",status="200"}': 1,
      'cincy_http_request_duration_seconds_count{route="/v1/graph"}': 4,
      'cincy_http_request_duration_seconds_count{route="/metrics"}': 1,
    });
  });
});
