// /api/v1/paths (src/server/routes/api/v1/paths.ts) over a listening server on the bundled graph-data
// (answers, 400s naming the field). /api/v1/explain is in explain.test.ts; `cincy path` / `cincy explain`
// against it in test/e2e/http-paths-cli.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_GRAPH_DATA } from '../../../../../../src/bundled.js';
import { startServer, type TestServer } from '../../../../../support/server.js';
import type { Paths } from '../../../../../support/pathsAnswer.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ graphData: BUNDLED_GRAPH_DATA });
}, 60_000);
afterAll(async () => server.close());

const get = async (path: string): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('GET /api/v1/paths', () => {
  it('answers the best paths, hop by hop, in the documented shape', async () => {
    const r = await get('/api/v1/paths?from=4.12.10&to=4.16.5&arch=amd64&limit=2');
    expect(r.status).toBe(200);
    const a = r.body as unknown as Paths;
    expect(a).toMatchObject({ from: '4.12.10', to: '4.16.5', arch: 'amd64' });
    expect(a.paths).toHaveLength(2);
    for (const path of a.paths) {
      expect(path.hops[0]!.from).toBe('4.12.10');
      expect(path.hops.at(-1)!.to).toBe('4.16.5');
      expect(path.risksNotAccepted).toEqual([]);
      for (const hop of path.hops)
        expect(Object.keys(hop).sort()).toEqual(['channel', 'channels', 'from', 'recommended', 'risks', 'to']);
    }
  });

  it('reports risks not accepted, and a path over accepted risks has none', async () => {
    // Every edge into 4.12.11 from 4.12.10 or before is conditional (blocked-edges of the bundled data).
    const risky = (await get('/api/v1/paths?from=4.12.10&to=4.12.11')).body as unknown as Paths;
    expect(risky.paths[0]!.risksNotAccepted).toEqual(['RHELKubeletMemoryPressureMisread']);
    expect(risky.notes.join()).toContain('every path crosses a conditional edge');
    const accepted = (await get('/api/v1/paths?from=4.12.10&to=4.12.11&acceptRisks=RHELKubeletMemoryPressureMisread'))
      .body as unknown as Paths;
    expect(accepted.paths[0]!.risksNotAccepted).toEqual([]);
    expect(accepted.paths[0]!.hops).toHaveLength(1);
    expect(accepted.paths[0]!.hops[0]).toMatchObject({
      recommended: false,
      risks: [{ name: 'RHELKubeletMemoryPressureMisread' }],
    });
  });

  it('mode=eus notes the paused worker pools; a channel restricts the edges', async () => {
    const eus = (await get('/api/v1/paths?from=4.14.10&to=4.16.5&mode=eus')).body as unknown as Paths;
    expect(eus.notes.join('\n')).toContain('pause the worker machine config pools');
    const inChannel = (await get('/api/v1/paths?from=4.14.1&to=4.14.14&channel=stable-4.14')).body as unknown as Paths;
    for (const hop of inChannel.paths[0]!.hops) expect(hop.channels).toEqual(['stable-4.14']);
  });

  it('no path: says why', async () => {
    const cases: Array<[string, string]> = [
      ['from=4.12.10&to=4.99.0', 'target-not-a-release'],
      ['from=4.99.0&to=4.12.10', 'source-not-a-release'],
      ['from=4.18.4&to=4.12.10', 'no-path'],
      ['from=4.12.10&to=4.16.5&channel=stable-4.12', 'target-not-in-channel'],
    ];
    for (const [query, code] of cases) {
      const r = await get(`/api/v1/paths?${query}`);
      expect(r.status).toBe(200);
      expect((r.body as unknown as Paths).paths).toEqual([]);
      expect((r.body as unknown as Paths).reason?.code, query).toBe(code);
    }
    const none = (await get('/api/v1/paths?from=4.18.4&to=4.12.10')).body as unknown as Paths;
    expect(none.reason!.message).toContain('the furthest minor reachable from 4.18.4 is 4.18');
  });

  it('400 naming the field for bad input', async () => {
    const cases: Array<[string, string]> = [
      ['to=4.1.0', "must have required property 'from'"],
      ['from=x&to=4.1.0', 'querystring/from'],
      ['from=4.1.0&to=4.1.1&limit=11', 'querystring/limit'],
      ['from=4.1.0&to=4.1.1&limit=0', 'querystring/limit'],
      ['from=4.1.0&to=4.1.1&mode=fast', 'querystring/mode'],
      ['from=4.1.0&to=4.1.1&arch=AMD', 'querystring/arch'],
      ['from=4.1.0&to=4.1.1&channel=Stable', 'querystring/channel'],
      ['from=4.1.0&to=4.1.1&acceptRisks=,', 'querystring/acceptRisks'],
      ['from=4.1.0&to=4.1.1&extra=1', 'must NOT have additional properties'],
    ];
    for (const [query, text] of cases) {
      const r = await get(`/api/v1/paths?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.kind).toBe('invalid_request');
      expect(r.body.value, query).toContain(text);
    }
  });
});

describe('the planning budget (--plan-rate-limit)', () => {
  const sources = (n: number): string => Array.from({ length: n }, (_, i) => `4.12.${i + 1}`).join(',');

  it('charges 1 for one path, 10 for more, one per source of a mirror plan, and answers 429 past it', async () => {
    const small = await startServer({ graphData: BUNDLED_GRAPH_DATA, planRateLimit: 30 });
    try {
      const get = (path: string): Promise<Response> => fetch(`${small.url}${path}`);
      const left = (r: Response): string | null => r.headers.get('x-ratelimit-remaining');
      expect(left(await get('/api/v1/paths?from=4.12.10&to=4.16.5&limit=4'))).toBe('20');
      expect(left(await get('/api/v1/paths?from=4.12.10&to=4.16.5&limit=1'))).toBe('19');
      expect(left(await get('/api/v1/paths?from=4.12.10&to=4.16.5'))).toBe('9'); // the default, 3 paths
      // Ten sources do not fit in the nine left: refused whole, and nothing is charged.
      const over = await get(`/api/v1/mirror-plan?to=4.16.5&from=${sources(10)}`);
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await over.json()) as { value: string }).value).toBe(
        "more than 30 planned paths in a minute by '127.0.0.1'",
      );
      const nine = await get(`/api/v1/mirror-plan?to=4.16.5&from=${sources(9)}`);
      expect(nine.status).toBe(200);
      expect(left(nine)).toBe('0');
      expect((await get('/api/v1/paths?from=4.12.10&to=4.16.5&limit=1')).status).toBe(429);
      // The graph is no planning: it is answered all the same.
      expect((await get('/api/upgrades_info/v1/graph?channel=stable-4.16')).status).toBe(200);
    } finally {
      await small.close();
    }
  });

  it('behind a trusted proxy, counts each client its X-Forwarded-For names, and an IPv6 client by its /64', async () => {
    const proxied = await startServer({ graphData: BUNDLED_GRAPH_DATA, planRateLimit: 20, trustProxy: ['127.0.0.1'] });
    try {
      const plan = (client: string, n: number): Promise<Response> =>
        fetch(`${proxied.url}/api/v1/mirror-plan?to=4.16.5&from=${sources(n)}`, {
          headers: { 'x-forwarded-for': client },
        });
      expect((await plan('203.0.113.7', 20)).status).toBe(200);
      expect((await plan('203.0.113.7', 1)).status).toBe(429);
      expect((await plan('198.51.100.9', 20)).status).toBe(200);
      expect((await plan('2001:db8:1:2::1', 20)).status).toBe(200);
      const sameNetwork = await plan('2001:db8:1:2:ffff::9', 1);
      expect(sameNetwork.status).toBe(429);
      expect(((await sameNetwork.json()) as { value: string }).value).toContain("by '2001:db8:1:2::/64'");
      expect((await plan('2001:db8:1:3::1', 20)).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });
});

describe('clientOf', () => {
  it('counts IPv4 as it is, IPv6 by /64 however spelled, and what is no address as the peer', async () => {
    const { clientOf } = await import('../../../../../../src/server/routes/api/v1/planning.js');
    expect(clientOf('203.0.113.7', '127.0.0.1')).toBe('203.0.113.7');
    expect(clientOf('::ffff:203.0.113.7', undefined)).toBe('203.0.113.7');
    expect(clientOf('2001:DB8:0001:2::1%eth0', undefined)).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:2:ffff:ffff:ffff:ffff', undefined)).toBe('2001:db8:1:2::/64');
    expect(clientOf('evil-1234', '198.51.100.1')).toBe('198.51.100.1');
    expect(clientOf(undefined, undefined)).toBe('unknown');
  });
});
