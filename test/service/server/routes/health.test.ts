// Liveness and readiness (src/server/routes/health.ts) over a listening server, with the served graph.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, tempDir, type TestServer } from '../../../support/server.js';
import { writeTree } from '../../../support/trees.js';

let server: TestServer;
let dir: { path: string; remove(): void };

beforeAll(async () => {
  dir = tempDir();
  writeTree(dir.path);
  server = await startServer({ graphData: dir.path });
});
afterAll(async () => {
  await server.close();
  dir.remove();
});

const get = (path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> =>
  fetch(`${server.url}${path}`, { headers, method });

describe('service routes', () => {
  it('reports liveness and readiness with the served graph', async () => {
    expect(await (await get('/livez')).json()).toEqual({ status: 'ok' });
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { status: string; graph: { releases: number; channels: number } };
    expect(body.status).toBe('ready');
    expect(body.graph.releases).toBe(2);
    expect(body.graph.channels).toBe(1);
  });
});
