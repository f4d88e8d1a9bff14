// The HTTP contract of /graph (src/server/routes/graph.ts: parameters and their exact errors, content
// negotiation, compression, ETags, CORS), over a listening served.server. The other routes of the service are
// tested beside their modules: routes/health.test.ts, plugins/metrics.test.ts, plugins/openapi.test.ts.
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useTreeServer } from '../../../support/treeServer.js';

const CHANNEL = 'stable-4.1';

const served = useTreeServer();
const get = served.get;

/** A raw request, so the body is seen exactly as sent (fetch decompresses). */
function raw(
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${served.server.url}${path}`, { headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          headers: res.headers as Record<string, string | undefined>,
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /graph', () => {
  it('serves the channel on every path with the same body', async () => {
    const bodies = await Promise.all(
      ['/graph', '/v1/graph', '/api/upgrades_info/graph', '/api/upgrades_info/v1/graph'].map(async (p) => {
        const res = await get(`${p}?channel=${CHANNEL}`, { accept: 'application/json' });
        expect(res.status).toBe(200);
        return res.text();
      }),
    );
    expect(new Set(bodies).size).toBe(1);
    const doc = JSON.parse(bodies[0]!) as { nodes: Array<{ version: string }>; conditionalEdges: unknown[] };
    expect(doc.nodes.map((n) => n.version)).toEqual(['4.1.0', '4.1.1']);
    expect(doc.conditionalEdges).toHaveLength(1);
  });

  it('answers the exact errors of the protocol for missing and invalid parameters', async () => {
    const cases: Array<[string, number, object]> = [
      ['/graph', 400, { kind: 'missing_params', value: 'mandatory client parameters missing: channel' }],
      ['/graph?arch=amd64', 400, { kind: 'missing_params', value: 'mandatory client parameters missing: channel' }],
      [
        '/graph?channel=x:y',
        400,
        {
          kind: 'invalid_params',
          value: "invalid client parameters: channel 'x:y' does not match regex '^[0-9a-z\\-\\.]+$'",
        },
      ],
      [
        `/graph?channel=${CHANNEL}&arch=AMD_64`,
        400,
        {
          kind: 'invalid_params',
          value: "invalid client parameters: arch 'AMD_64' does not match regex '^[0-9a-z]+$'",
        },
      ],
      [
        `/graph?channel=${CHANNEL}&channel=fast-4.1`,
        400,
        { kind: 'invalid_params', value: 'invalid client parameters: channel given more than once' },
      ],
    ];
    for (const [path, status, body] of cases) {
      const res = await get(path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(body);
    }
  });

  it('answers 200 with an empty graph for a well-formed unknown channel or arch, and ignores unknown parameters', async () => {
    for (const q of ['channel=stable-9.9', `channel=${CHANNEL}&arch=ppc64le`]) {
      const res = await get(`/graph?${q}`, { accept: 'application/json' });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ version: 1, nodes: [], edges: [], conditionalEdges: [] });
    }
    const cvo = await get(
      `/graph?arch=amd64&channel=${CHANNEL}&id=8f2c1f6e-3b0a-4c1e-9d4f-1a2b3c4d5e6f&version=4.1.0&foo=bar`,
      { accept: 'application/json', 'user-agent': 'ClusterVersionOperator/4.1.0' },
    );
    const plain = await get(`/graph?channel=${CHANNEL}`, { accept: 'application/json' });
    expect(await cvo.text()).toBe(await plain.text());
  });

  it('parses Accept: lists, q-values and wildcards; 406 only when nothing fits', async () => {
    const cases: Array<[string | undefined, number, string?]> = [
      [undefined, 200, 'application/vnd.redhat.cincinnati.v1+json'],
      ['application/json', 200, 'application/json'],
      ['application/vnd.redhat.cincinnati.v1+json', 200, 'application/vnd.redhat.cincinnati.v1+json'],
      ['text/plain;q=0.5, application/json;q=0.9', 200, 'application/json'],
      [
        'application/json;q=0.2, application/vnd.redhat.cincinnati.v1+json;q=0.8',
        200,
        'application/vnd.redhat.cincinnati.v1+json',
      ],
      ['text/html, application/*;q=0.1', 200],
      ['*/*', 200],
      ['text/html', 406],
      ['application/json;q=0', 406],
      ['application/json; charset=utf-8', 200, 'application/json'],
      ['', 406],
      [undefined, 200, 'application/vnd.redhat.cincinnati.v1+json'], // an empty Accept before must not change this
    ];
    for (const [accept, status, type] of cases) {
      const res = await get(`/graph?channel=${CHANNEL}`, accept === undefined ? {} : { accept });
      expect(res.status, String(accept)).toBe(status);
      if (status === 406) expect(((await res.json()) as { kind: string }).kind).toBe('invalid_content_type');
      if (type) expect(res.headers.get('content-type')).toBe(type);
    }
  });

  it('compresses with gzip and br to the same document, with an ETag per representation', async () => {
    const identity = await raw(`/graph?channel=${CHANNEL}`, { accept: 'application/json' });
    const gz = await raw(`/graph?channel=${CHANNEL}`, { accept: 'application/json', 'accept-encoding': 'gzip' });
    const br = await raw(`/graph?channel=${CHANNEL}`, {
      accept: 'application/json',
      'accept-encoding': 'br;q=1, gzip;q=0.5',
    });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(br.headers['content-encoding']).toBe('br');
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(gunzipSync(gz.body).equals(identity.body)).toBe(true);
    expect(brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
    const vnd = await raw(`/graph?channel=${CHANNEL}`, { accept: 'application/vnd.redhat.cincinnati.v1+json' });
    const etags = [identity, gz, br, vnd].map((r) => r.headers.etag);
    expect(new Set(etags).size).toBe(4);
    for (const r of [identity, gz, br]) {
      expect(r.headers.vary).toMatch(/Accept, Accept-Encoding/);
      expect(r.headers['cache-control']).toBe('public, max-age=30');
    }
  });

  it('answers 304 to If-None-Match with the current ETag (also in a list or weak), 200 otherwise', async () => {
    const first = await raw(`/graph?channel=${CHANNEL}`, { accept: 'application/json' });
    const etag = first.headers.etag!;
    for (const inm of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
      const res = await raw(`/graph?channel=${CHANNEL}`, { accept: 'application/json', 'if-none-match': inm });
      expect(res.status, inm).toBe(304);
      expect(res.body.length).toBe(0);
      expect(res.headers.etag).toBe(etag);
    }
    const gz = await raw(`/graph?channel=${CHANNEL}`, {
      accept: 'application/json',
      'accept-encoding': 'gzip',
      'if-none-match': etag,
    });
    expect(gz.status).toBe(200);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    for (const encoding of ['identity', 'gzip']) {
      const headers = { accept: 'application/json', 'accept-encoding': encoding };
      const head = await raw(`/graph?channel=${CHANNEL}`, headers, 'HEAD');
      const body = await raw(`/graph?channel=${CHANNEL}`, headers);
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      expect(head.headers.etag).toBe(body.headers.etag);
      expect(head.headers['content-length']).toBe(String(body.body.length));
    }
  });

  it('allows any origin for GET and HEAD', async () => {
    const res = await get(`/graph?channel=${CHANNEL}`, {
      accept: 'application/json',
      origin: 'https://console.example',
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://console.example');
    expect(res.headers.get('vary')).toMatch(/Origin/);
    const pre = await fetch(`${served.server.url}/graph?channel=${CHANNEL}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://console.example', 'access-control-request-method': 'GET' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET, HEAD');
  });

  it('keeps running after a 100 KB query string (the HTTP layer refuses it)', async () => {
    const res = await raw(`/graph?channel=${'a'.repeat(100 * 1024)}`);
    expect([414, 431]).toContain(res.status);
    expect((await get('/livez')).status).toBe(200);
  });

  it('answers unknown paths with 404 {kind, value}', async () => {
    const res = await get('/no/such/path');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ kind: 'does_not_exist', value: 'no such path: GET /no/such/path' });
  });
});
