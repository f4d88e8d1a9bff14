// Graph-data 2.x's phased rollouts served: a timed release enters its channel at its start (a build
// then), the edges into it reach clusters over the duration of the rule that matches each edge, the API
// lists and halts the rollout graph-data declares, and the store exports the tree as 2.x again.
/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are read as JSON, checked field by field */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@cincy/simulator/clock/manual';
import { createToken } from '../../../../../../src/cli/token.js';
import { placeOf } from '../../../../../../src/graph/rollouts.js';
import { readGraphData } from '../../../../../../src/sources/graphData.js';
import { startServer, tempDir, type TestServer } from '../../../../../support/server.js';
import { release, writeTree } from '../../../../../support/trees.js';

const HOUR = 3600_000;
const START = Date.parse('2026-06-01T12:00:00Z');
const sha = (c: string) => `quay.example/ocp/release@sha256:${c.repeat(64)}`;

describe('graph-data 2.x phased rollouts, served', () => {
  let server: TestServer;
  let clock: ManualClock;
  const dir = tempDir();
  let token = '';

  const graph = async (id?: string) => {
    const res = await fetch(`${server.url}/graph?channel=stable-4.2${id ? `&id=${id}` : ''}`, {
      headers: { accept: 'application/json' },
    });
    const doc = (await res.json()) as any;
    const v = doc.nodes.map((n: any) => n.version);
    return { nodes: v as string[], edges: doc.edges.map(([a, b]: [number, number]) => `${v[a]}>${v[b]}`) as string[] };
  };

  beforeAll(async () => {
    const secretFile = join(dir.path, 'secret');
    writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    clock = new ManualClock(START - HOUR);
    const tree = writeTree(join(dir.path, 'tree'), {
      version: '2.0.0\n',
      'channels/stable-4.1.yaml': undefined,
      'blocked-edges/4.1.1-Risk.yaml': undefined,
      'releases/amd64/4.1.0.json': release('4.1.0', { payload: sha('a') }),
      'releases/amd64/4.1.1.json': release('4.1.1', { payload: sha('b') }),
      'releases/amd64/4.2.0.json': release('4.2.0', { payload: sha('c'), previous: ['4.1.0', '4.1.1'] }),
      'releases/amd64/4.2.1.json': release('4.2.1', { payload: sha('d'), previous: ['4.1.1', '4.2.0'] }),
      'channels/stable-4.2.yaml':
        'name: stable-4.2\nphasedRollouts:\n- fromVersion: patch\n  duration: PT2H\n- fromVersion: minor\n  duration: PT10H\n' +
        'versions:\n- 4.1.0\n- 4.1.1\n- 4.2.0\n- name: 4.2.1\n  start: 2026-06-01T12:00:00Z\n',
    });
    server = await startServer({
      graphData: tree,
      db: join(dir.path, 'store.db'),
      auth: { secretFile, rateLimit: 1000 },
      clock,
    });
    token = await createToken(
      { adminJwtSecretFile: secretFile, scope: 'rollouts:write', ttl: '30d' },
      new Date(clock.now()),
    );
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    dir.remove();
  });

  it('serves a timed release from its start, and phases each kind of edge over its own duration', async () => {
    expect((await graph()).nodes).toEqual(['4.1.0', '4.1.1', '4.2.0']);
    const listed = (await (await fetch(`${server.url}/api/v1/rollouts`)).json()) as any;
    expect(listed.rollouts.map((r: any) => [r.to, r.duration, r.phase, r.createdBy]).sort()).toEqual([
      ['4.2.1', 'PT10H', 'scheduled', 'graph-data'],
      ['4.2.1', 'PT2H', 'scheduled', 'graph-data'],
    ]);

    clock.advance(HOUR + 1);
    await server.service.refresh(); // what the timer at the start does on real time
    const id = 'cluster-a';
    const none = await graph();
    expect(none.nodes).toContain('4.2.1');
    expect(none.edges.filter((e) => e.endsWith('>4.2.1'))).toEqual([]);
    // Half way through the patch window: the patch edge by the cluster's place, the minor one (10 h) not before 10%.
    clock.advance(HOUR);
    const got = await graph(id);
    expect(got.edges.includes('4.2.0>4.2.1')).toBe(placeOf(id, '4.2.1') <= 0.5);
    expect(got.edges.includes('4.1.1>4.2.1')).toBe(placeOf(id, '4.2.1') <= 0.1);
    clock.advance(10 * HOUR);
    expect((await graph()).edges.filter((e) => e.endsWith('>4.2.1')).sort()).toEqual(['4.1.1>4.2.1', '4.2.0>4.2.1']);
  });

  it('halts a graph-data rollout through the API, keeps the halt over a re-import, and exports 2.x', async () => {
    const listed = (await (await fetch(`${server.url}/api/v1/rollouts`)).json()) as any;
    const patch = listed.rollouts.find((r: any) => r.duration === 'PT2H');
    const res = await fetch(`${server.url}/api/v1/rollouts/${patch.id}/halt`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'bad patch' }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ id: patch.id, state: 'halted', createdBy: 'graph-data' });
    await server.service.caughtUp();
    const doc = (await (
      await fetch(`${server.url}/graph?channel=stable-4.2`, { headers: { accept: 'application/json' } })
    ).json()) as any;
    expect(doc.conditionalEdges.map((c: any) => [c.edges, c.risks.map((r: any) => r.name)])).toEqual([
      [[{ from: '4.2.0', to: '4.2.1' }], ['PhasedRolloutHalted']],
    ]);

    const exported = join(dir.path, 'export.tar.gz');
    writeFileSync(
      exported,
      Buffer.from(await (await fetch(`${server.url}/api/upgrades_info/graph-data`)).arrayBuffer()),
    );
    const read = await readGraphData(exported);
    expect(read.errors).toEqual([]);
    expect(read.tree!.schemaVersion).toBe('2.0.0');
    expect(read.tree!.channels.find((c) => c.name === 'stable-4.2')!.phasing).toEqual({
      rules: [
        { fromVersion: 'patch', duration: 'PT2H' },
        { fromVersion: 'minor', duration: 'PT10H' },
      ],
      starts: { '4.2.1': '2026-06-01T12:00:00Z' },
    });
    // The same tree again: the halt stays.
    await server.service.refresh();
    const again = (await (await fetch(`${server.url}/api/v1/rollouts/${patch.id}`)).json()) as any;
    expect(again).toMatchObject({ state: 'halted', reason: 'bad patch' });
  });
});
