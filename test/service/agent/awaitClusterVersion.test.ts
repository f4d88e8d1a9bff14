// The agent started before its cluster is whole (src/agent/awaitClusterVersion.ts): no ClusterVersion, then
// one without status (a create on a real API server drops it), then its status. It waits, says why at a low
// rate, and once the object is whole polls as if it had started after it.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { awaitClusterVersion } from '../../../src/agent/awaitClusterVersion.js';
import type { ClusterVersion } from '../../../src/agent/clusterVersion.js';
import { RiskEvaluator } from '../../../src/agent/risks.js';
import { runAgent } from '../../../src/agent/run.js';
import { BUNDLED_GRAPH_DATA } from '../../../src/bundled.js';
import { systemClock } from '../../../src/clock.js';
import { RESOURCES } from '../../../src/cluster/resources.js';
import { kindNamed } from '@cincy/simulator/apiserver/kinds';
import { InMemoryClusterApi } from '@cincy/simulator/apiserver/memoryApi';
import { ClusterState } from '@cincy/simulator/apiserver/state';
import { useCleanup } from '../../support/cleanup.js';
import { startServer } from '../../support/server.js';

const cleanup = useCleanup();
const CV = kindNamed('ClusterVersion');
const IMAGE = `quay.io/openshift-release-dev/ocp-release@sha256:${'a'.repeat(64)}`;

const logged = (): { log: pino.Logger; lines: string[] } => {
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line).msg as string) });
  return { log, lines };
};

const until = async (what: string, f: () => boolean, ms = 10_000): Promise<void> => {
  for (const end = Date.now() + ms; !f(); await new Promise((r) => setTimeout(r, 10)))
    if (Date.now() > end) throw new Error(`not ${what} within ${ms} ms`);
};

/** The ClusterVersion as a cluster makes it: created without status, which it writes in a second request. */
const clusterVersion = (upstream: string): ClusterVersion => ({
  metadata: { name: 'version' },
  spec: { clusterID: '8f3c5e2a-4b6d-4e8f-9a1b-2c3d4e5f6a7b', channel: 'stable-4.16', upstream },
  status: {},
});

describe('the agent started before its ClusterVersion', () => {
  it('waits without writing, says why once a minute at most, and resolves once status.desired is written', async () => {
    const state = new ClusterState();
    const api = new InMemoryClusterApi(state, { fieldManager: 'cincy-agent' });
    const { log, lines } = logged();
    const stop = new AbortController();
    let got: ClusterVersion | undefined;
    const waiting = awaitClusterVersion({ api, log, clock: systemClock, signal: stop.signal, retryMs: 5 }).then(
      (cv) => (got = cv),
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(got).toBeUndefined();
    // Dozens of reads, one line.
    expect(lines).toEqual(['No cluster version object, waiting for one']);

    state.create(CV, undefined, {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      ...clusterVersion(''),
    });
    await until('the missing status said', () => lines.length === 2);
    expect(lines[1]).toMatch(/no status\.desired/);
    expect(got).toBeUndefined();
    expect((state.get(CV, undefined, 'version') as unknown as ClusterVersion).status ?? {}).toEqual({});

    const cv = state.get(CV, undefined, 'version') as unknown as ClusterVersion;
    await api.replaceStatus(RESOURCES.clusterVersions, {
      ...cv,
      status: { desired: { version: '4.16.0', image: IMAGE } },
    });
    await waiting;
    expect(got?.status.desired?.version).toBe('4.16.0');
    expect(lines.at(-1)).toBe('ClusterVersion ready: starting');

    // Aborted while waiting: undefined, at once.
    const none = new AbortController();
    const empty = new InMemoryClusterApi(new ClusterState(), { fieldManager: 'cincy-agent' });
    const pending = awaitClusterVersion({ api: empty, log, clock: systemClock, signal: none.signal, retryMs: 60_000 });
    none.abort();
    expect(await pending).toBeUndefined();
    stop.abort();
  });

  it('polls as if started after the ClusterVersion was whole: the same update lists, never an exit', async () => {
    const server = await startServer({ graphData: BUNDLED_GRAPH_DATA });
    cleanup.add(() => server.close());
    const upstream = `${server.url}/api/upgrades_info/v1/graph`;
    const desired = { version: '4.16.0', image: IMAGE };
    /** The agent's poll loop on a new cluster; the ClusterVersion is made `early` (before it starts) or after. */
    const run = async (early: boolean): Promise<ClusterVersion> => {
      const state = new ClusterState();
      const api = new InMemoryClusterApi(state, { fieldManager: 'cincy-agent' });
      const make = async (): Promise<void> => {
        state.create(CV, undefined, {
          apiVersion: 'config.openshift.io/v1',
          kind: 'ClusterVersion',
          ...clusterVersion(upstream),
        });
        const cv = state.get(CV, undefined, 'version') as unknown as ClusterVersion;
        await api.replaceStatus(RESOURCES.clusterVersions, { ...cv, status: { desired } });
      };
      if (early) await make();
      const stop = new AbortController();
      const { log } = logged();
      const agent = runAgent({
        api,
        log,
        signal: stop.signal,
        poller: { evaluator: new RiskEvaluator({}, Date.now, { minIntervalMs: 0 }), acceptRisks: 'disabled' },
        intervalMs: 60_000,
      });
      let exited = false;
      void agent.finally(() => (exited = true));
      if (!early) {
        await new Promise((r) => setTimeout(r, 100));
        await make();
      }
      const read = (): ClusterVersion => state.get(CV, undefined, 'version') as unknown as ClusterVersion;
      await until('the updates retrieved', () =>
        (read().status.conditions ?? []).some((c) => c.type === 'RetrievedUpdates'),
      );
      expect(exited).toBe(false);
      stop.abort();
      await agent;
      return read();
    };
    const after = await run(true);
    const before = await run(false);
    const lists = (cv: ClusterVersion): unknown => ({
      available: cv.status.availableUpdates?.map((u) => u.version),
      conditional: cv.status.conditionalUpdates?.map((u) => u.release.version),
      retrieved: cv.status.conditions?.find((c) => c.type === 'RetrievedUpdates')?.status,
    });
    expect(lists(after)).toMatchObject({ retrieved: 'True' });
    expect((after.status.availableUpdates ?? []).length).toBeGreaterThan(0);
    expect(lists(before)).toEqual(lists(after));
  });
});
