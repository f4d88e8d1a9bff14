// At info, a request logs nothing unless it fails (a successful /graph hit is
// counted in /metrics); --access-log writes one line per request.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cincy, serveCli, useCleanup, type Served } from '../support/cli.js';
import { writeTree } from '../support/trees.js';

const cleanup = useCleanup();
const GRAPH_HITS = 40;

async function serve(extra: string[]): Promise<{ served: Served; token: string }> {
  const dir = cleanup.dir();
  const secret = join(dir, 'secret');
  writeFileSync(secret, 'an-admin-secret-of-more-than-thirty-two-bytes\n');
  const args = ['--db', join(dir, 'cincy.db'), '--graph-data', writeTree(join(dir, 'tree'))];
  const served = await serveCli([...args, '--admin-jwt-secret-file', secret, ...extra], cleanup);
  const token = cincy(['token', 'create', '--admin-jwt-secret-file', secret, '--scope', 'channels:write']);
  return { served, token: token.stdout.trim() };
}

/** GET /graph many times, then admin reads and writes (one each of 200, 201, 401, 404); how many of the latter. */
async function traffic(url: string, token: string): Promise<number> {
  for (let i = 0; i < GRAPH_HITS; i++) {
    const r = await fetch(`${url}/graph?channel=stable-4.1`);
    expect(r.status).toBe(200);
    await r.arrayBuffer();
  }
  const put = (auth: string) =>
    fetch(`${url}/api/v1/channels/fast-4.1`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${auth}` },
      body: JSON.stringify({ versions: ['4.1.0'] }),
    });
  const statuses = [
    (await fetch(`${url}/api/v1/channels`)).status,
    (await put(token)).status,
    (await put('not-a-token')).status,
    (await fetch(`${url}/api/v1/nothing`)).status,
  ];
  expect(statuses).toEqual([200, 201, 401, 404]);
  return statuses.length;
}

/** The log lines written after the server said where it listens, once the last request has been logged or 1 s passed. */
async function linesAfterListening(served: Served, settled: (lines: string[]) => boolean): Promise<string[]> {
  const lines = (): string[] =>
    served
      .log()
      .split('\n')
      .slice(
        served
          .log()
          .split('\n')
          .findIndex((l) => l.includes('Server listening')) + 1,
      )
      .filter(Boolean);
  for (let i = 0; i < 20 && !settled(lines()); i++) await new Promise((r) => setTimeout(r, 50));
  return lines();
}

describe('reliability finding 4: request logging', () => {
  it('logs no line for successful /graph hits at info, and at most one per other request; /metrics counts them', async () => {
    const { served, token } = await serve([]);
    const others = await traffic(served.url, token);
    const metrics = await (await fetch(`${served.url}/metrics`)).text();
    expect(metrics).toContain(`cincy_http_requests_total{route="/graph",method="GET",status="200"} ${GRAPH_HITS}`);
    const lines = await linesAfterListening(served, () => false);
    expect(lines.filter((l) => l.includes('/graph'))).toEqual([]);
    expect(lines.length).toBeLessThanOrEqual(others);
  });

  it('with --access-log, logs one line per request, without the token', async () => {
    const { served, token } = await serve(['--access-log']);
    const others = await traffic(served.url, token);
    const requests = (l: string[]) => l.filter((line) => line.includes('"msg":"request"'));
    const lines = await linesAfterListening(served, (l) => requests(l).length >= GRAPH_HITS + others);
    expect(requests(lines)).toHaveLength(GRAPH_HITS + others);
    expect(lines.filter((l) => l.includes('"path":"/graph"'))).toHaveLength(GRAPH_HITS);
    expect(JSON.parse(requests(lines).at(-1)!)).toMatchObject({ method: 'GET', path: '/api/v1/nothing', status: 404 });
    expect(served.log()).not.toContain(token);
  });
});
