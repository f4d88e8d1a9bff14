// What the poll recorder (src/app/fleet/pollRecorder.ts) stores of clusters polling over real HTTP, and
// what it does not: a keyed hash of each id with hashIds, no more clusters than the cap, nothing when
// recording is off. The recorder's batches on a store are in pollRecorder.test.ts, the fleet API in
// test/service/server/routes/api/v1/fleet.test.ts.
/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are read as JSON, checked field by field */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createToken } from '../../../../src/cli/token.js';
import { BUNDLED_GRAPH_DATA } from '../../../../src/settings.js';
import { startServer, tempDir, type TestServer } from '../../../support/server.js';

const uuid = (n: number): string => {
  const hex = n.toString(16).padStart(12, '0');
  return `5a1e${hex.slice(0, 4)}-0000-4000-8000-${hex}`;
};

describe('what the recorder stores, and what it does not', () => {
  const dir = tempDir();
  afterAll(() => dir.remove());

  const serve = async (fleet: Record<string, unknown>): Promise<{ server: TestServer; token: string }> => {
    const secretFile = join(dir.path, 'secret');
    writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    const server = await startServer({
      graphData: BUNDLED_GRAPH_DATA,
      auth: { secretFile },
      fleet: { flushIntervalMs: 3_600_000, ...fleet },
    });
    const token = await createToken({ adminJwtSecretFile: secretFile, scope: 'fleet:read', ttl: '1h', subject: 'a' });
    return { server, token };
  };
  const fleetOf = async (server: TestServer, token: string, path = '/api/v1/fleet'): Promise<any> =>
    (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).json();
  const pollN = async (server: TestServer, n: number): Promise<void> => {
    for (let i = 0; i < n; i++)
      await (await fetch(`${server.url}/graph?channel=stable-4.16&id=${uuid(i)}&version=4.16.1`)).arrayBuffer();
  };

  it('keeps a keyed hash of each id with hashIds, and finds a cluster by the id it polls with', async () => {
    const { server, token } = await serve({ record: true, hashIds: true });
    try {
      await pollN(server, 3);
      await server.recorder!.flush();
      const { clusters } = await fleetOf(server, token, '/api/v1/fleet/clusters');
      expect(clusters).toHaveLength(3);
      for (const c of clusters) expect(c.id).toMatch(/^[0-9a-f]{32}$/);
      const raw = await server.store.read((tx) => tx.fleet.clusters({}, 10));
      expect(raw.map((r) => r.id)).not.toContain(uuid(0));
      const one = await fleetOf(server, token, `/api/v1/fleet/clusters?id=${uuid(1)}`);
      expect(one.clusters).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('stores no more clusters than the cap, and counts those left out', async () => {
    const { server, token } = await serve({ record: true, maxClusters: 5 });
    try {
      await pollN(server, 8);
      await server.recorder!.flush();
      const summary = await fleetOf(server, token);
      expect(summary.clusters).toBe(5);
      expect(summary.polls.overCap).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('records nothing when recording is off', async () => {
    const { server, token } = await serve({ record: false });
    try {
      await pollN(server, 4);
      const summary = await fleetOf(server, token);
      expect(summary).toMatchObject({ clusters: 0, recording: false });
    } finally {
      await server.close();
    }
  });
});
