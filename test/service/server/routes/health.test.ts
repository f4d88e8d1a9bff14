// Liveness and readiness (src/server/routes/health.ts) over a listening server, with the served graph.
import { describe, expect, it } from 'vitest';
import { useTreeServer } from '../../../support/treeServer.js';

const served = useTreeServer();
const get = served.get;

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
