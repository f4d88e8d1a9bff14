// Clusters newly stranded and newly exposed to a risk, as changes handed to the change sinks (what the
// webhook outbox takes): real polls over HTTP, a risk written through the admin API, and a second
// comparer on the same store, which finds nothing new to report.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '../../../../src/history/change.js';
import { FleetAlerts } from '../../../../src/app/fleet/fleetAlerts.js';
import { ManualClock } from '@cincy/simulator/clock/manual';
import { createToken } from '../../../../src/cli/token.js';
import { BUNDLED_GRAPH_DATA } from '../../../../src/settings.js';
import { startServer, tempDir, type TestServer } from '../../../support/server.js';

const CHANNEL = 'stable-4.16';
const ARCH = 'amd64';
const LACKED = '4.11.0';
const uuid = (i: number): string => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

describe('fleet alerts', () => {
  const dir = tempDir('cincy-fleet-alerts-');
  const captured: Change[] = [];
  let server: TestServer;
  let clock: ManualClock;
  let riskToken: string;
  let from: string;
  let to: string;

  const poll = async (id: string, version: string): Promise<void> => {
    const res = await fetch(
      `${server.url}/api/upgrades_info/v1/graph?channel=${CHANNEL}&arch=${ARCH}&id=${id}&version=${version}`,
      { headers: { accept: 'application/json' } },
    );
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  };
  /** The alert changes captured since `since` (an index into `captured`). */
  const alertsSince = (since: number): Change[] => captured.slice(since).filter((c) => c.kind.startsWith('clusters-'));

  beforeAll(async () => {
    const secretFile = join(dir.path, 'secret');
    writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    clock = new ManualClock(Date.parse('2026-06-01T00:00:00Z'));
    server = await startServer({
      graphData: BUNDLED_GRAPH_DATA,
      auth: { secretFile, rateLimit: 1000 },
      clock,
      fleet: { record: true, flushIntervalMs: 3_600_000 },
      changeSinks: [
        async (_tx, changes) => {
          captured.push(...changes);
        },
      ],
    });
    riskToken = await createToken(
      { adminJwtSecretFile: secretFile, scope: 'risks:write', ttl: '1d', subject: 'alerts-admin' },
      new Date(clock.now()),
    );
    // A recommended edge of the channel, with no conditional update at its start: the risk goes on it.
    const graph = (await (
      await fetch(`${server.url}/api/upgrades_info/v1/graph?channel=${CHANNEL}&arch=${ARCH}`, {
        headers: { accept: 'application/json' },
      })
    ).json()) as {
      nodes: Array<{ version: string }>;
      edges: Array<[number, number]>;
      conditionalEdges: Array<{ edges: Array<{ from: string }> }>;
    };
    const versions = graph.nodes.map((n) => n.version);
    expect(versions).not.toContain(LACKED);
    const conditionalFrom = new Set(graph.conditionalEdges.flatMap((c) => c.edges.map((e) => e.from)));
    const edge = graph.edges.find(([a]) => !conditionalFrom.has(versions[a]!))!;
    [from, to] = [versions[edge[0]]!, versions[edge[1]]!];
    await server.fleetAlerts!.check(); // the empty fleet, compared once
  });

  afterAll(async () => {
    await server?.close();
    dir.remove();
  });

  it('reports clusters newly stranded with the count before and after, and nothing while it holds', async () => {
    const mark = captured.length;
    for (let i = 0; i < 10; i++) await poll(uuid(i), LACKED);
    await server.recorder!.flush();
    await server.fleetAlerts!.check();
    expect(alertsSince(mark)).toEqual([
      {
        kind: 'clusters-stranded',
        at: expect.any(String),
        channel: CHANNEL,
        arch: ARCH,
        detail: { reason: 'version-not-in-channel', clusters: 10, before: 0 },
      },
    ]);

    await server.fleetAlerts!.check();
    for (let i = 0; i < 10; i++) await poll(uuid(i), LACKED); // the same clusters again
    await server.recorder!.flush();
    await server.fleetAlerts!.check();
    expect(alertsSince(mark)).toHaveLength(1);

    for (let i = 10; i < 15; i++) await poll(uuid(i), LACKED);
    await server.recorder!.flush();
    await server.fleetAlerts!.check();
    expect(alertsSince(mark).slice(1)).toEqual([
      {
        kind: 'clusters-stranded',
        at: expect.any(String),
        channel: CHANNEL,
        arch: ARCH,
        detail: { reason: 'version-not-in-channel', clusters: 15, before: 10 },
      },
    ]);
  });

  it('reports the clusters a risk written through the admin API exposes, beside the risk in graph history', async () => {
    for (let i = 100; i < 107; i++) await poll(uuid(i), from);
    await server.recorder!.flush();
    await server.fleetAlerts!.check();
    const mark = captured.length;
    const res = await fetch(`${server.url}/api/v1/risks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${riskToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        to,
        from: `^${from.replace(/\./g, '[.]')}[+]`,
        name: 'AlertTestRisk',
        url: 'https://risks.example/alerts',
        message: 'A risk declared while clusters poll.',
        matchingRules: [{ type: 'Always' }],
      }),
    });
    expect(res.status, await res.text()).toBe(201);
    // The new graph's swap started a comparison and graph history's recording; both are waited for.
    await server.fleetAlerts!.check();
    await server.history.idle();
    expect(alertsSince(mark)).toEqual([
      {
        kind: 'clusters-exposed',
        at: expect.any(String),
        risk: 'AlertTestRisk',
        channel: CHANNEL,
        arch: ARCH,
        detail: { clusters: 7, before: 0 },
      },
    ]);
    expect(captured.slice(mark)).toContainEqual(
      expect.objectContaining({
        kind: 'risk-declared',
        risk: 'AlertTestRisk',
        channel: CHANNEL,
        actor: 'alerts-admin',
      }),
    );
  });

  it('reports a state once: another comparer on the same store finds it reported', async () => {
    const mark = captured.length;
    const sink = async (_tx: unknown, changes: readonly Change[]): Promise<void> => void captured.push(...changes);
    const other = new FleetAlerts(
      server.store,
      () => server.store.read((tx) => tx.fleet.groups(0)),
      server.service,
      clock,
      [sink],
    );
    await Promise.all([other.check(), server.fleetAlerts!.check()]);
    expect(captured.slice(mark)).toEqual([]);
    await other.close();
  });
});
