// The four parts of a cluster's updates started in every order (24): the API server (a real kube-apiserver,
// ../shared/kube), the simulated cluster on it (`mock-cluster --kubeconfig`), the update service (`cincy
// serve`) and the agent. Whatever came first, the ClusterVersion ends in the same status, and neither the agent
// nor the simulated cluster exits on the way (the agent waits for the ClusterVersion as the CVO's
// LoadInitialPayload does; the simulated cluster waits for its server).
// The agent and the simulated cluster are started as processes in each order. The two servers are started
// once and reached through a gate each (support/gate.ts): a server not started yet is an address where every
// connection is turned away, which is what the agent and the simulated cluster meet; the gate opens at the
// server's turn. Between two orders the simulated cluster's objects are deleted from the API server, so each
// order begins with no ClusterVersion.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../src/agent/clusterVersion.js';
import { clusterApi, loadKubeConfig } from '../../src/cli/kubeconfig.js';
import type { ClusterApi } from '../../src/cluster/api.js';
import { unlessNotFound } from '../../src/cluster/apiError.js';
import { RESOURCES } from '../../src/cluster/resources.js';
import { serveCli, useCleanup } from '../support/cli.js';
import { startGate, type Gate } from '../support/gate.js';
import { kubectlAvailable } from '../support/kubectl.js';
import { CHEAP_POLL_MS, launchCincy, until, type Launched } from '../support/processes.js';
import { realApiServerAvailable, useRealApiServer, type RealApiServer } from '../support/realApiServer.js';
import { tempDir } from '../support/server.js';
import { clusterFlags, makeUpdateFixtures, type UpdateFixtures } from '../support/updateFixtures.js';

const cleanup = useCleanup();
const PARTS = ['API server', 'simulated cluster', 'update service', 'agent'] as const;
type Part = (typeof PARTS)[number];
/** How long a ClusterVersion the agent has polled for must stay as it is to count as settled. */
const SETTLED_MS = 2000;

/** Every order of `xs`. */
const orders = <T>(xs: readonly T[]): T[][] =>
  xs.length <= 1
    ? [[...xs]]
    : xs.flatMap((x, i) => orders([...xs.slice(0, i), ...xs.slice(i + 1)]).map((r) => [x, ...r]));

/** The fields that say when, and the cluster's random id: they differ between any two clusters. */
const TIMES = new Set(['lastTransitionTime', 'startedTime', 'completionTime', 'lastHeartbeatTime', 'clusterID']);
const withoutTimes = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(withoutTimes)
    : v && typeof v === 'object'
      ? Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (TIMES.has(k) ? [] : [[k, withoutTimes(x)]])))
      : v;

const available = (): boolean => [realApiServerAvailable(), kubectlAvailable()].every(Boolean);

const realApiServer = useRealApiServer();

describe.runIf(available())('agent, simulated cluster, API server and update service started in every order', () => {
  const dir = tempDir();
  let fixtures: UpdateFixtures;
  let kubeconfig = '';
  /** The same kubeconfig through the API server's gate: the agent's and the simulated cluster's. */
  let gatedKubeconfig = '';
  let apiGate: Gate;
  let serviceGate: Gate;
  /** Deletes what the last simulated cluster made on the API server. */
  let reset: RealApiServer['reset'];
  let reader: ClusterApi;
  const statuses = new Map<string, unknown>();

  beforeAll(async () => {
    const stopped: Array<() => unknown> = [];
    const shared = { add: (f: () => unknown) => void stopped.push(f) };
    fixtures = await makeUpdateFixtures(dir.path);
    const [api, served] = await Promise.all([
      realApiServer(),
      serveCli(['--db', ':memory:', '--graph-data', fixtures.tree, '--trust-keys', fixtures.trust], shared),
    ]);
    kubeconfig = api.kubeconfig;
    reader = clusterApi(loadKubeConfig({ kubeconfig }), 'start-orders-test');
    const text = readFileSync(kubeconfig, 'utf8');
    const server = /server: "https:\/\/127\.0\.0\.1:(\d+)"/.exec(text);
    if (!server) throw new Error(`no server address in ${kubeconfig}`);
    apiGate = await startGate({ host: '127.0.0.1', port: Number(server[1]) });
    serviceGate = await startGate({ host: '127.0.0.1', port: Number(new URL(served.url).port) });
    gatedKubeconfig = join(dir.path, 'gated.kubeconfig');
    writeFileSync(gatedKubeconfig, text.replace(server[0], `server: "https://127.0.0.1:${apiGate.port}"`), {
      mode: 0o600,
    });
    reset = api.reset;
    return async () => {
      await Promise.all([apiGate.close(), serviceGate.close()]);
      for (const f of stopped.reverse()) await f();
      dir.remove();
    };
  }, 180_000);

  /** The ClusterVersion, read past the gate, from this process (a kubectl for each of the many reads costs more). */
  const clusterVersion = async (): Promise<ClusterVersion | undefined> =>
    unlessNotFound(reader.get<ClusterVersion>(RESOURCES.clusterVersions, { name: 'version' }));

  for (const order of orders(PARTS))
    it(
      order.join(' → '),
      async () => {
        await reset();
        await until('the ClusterVersion deleted', async () => !(await clusterVersion()), 30_000, CHEAP_POLL_MS);
        const service = `http://127.0.0.1:${serviceGate.port}`;
        const running: Partial<Record<Part, Launched>> = {};
        const outputs = (): string =>
          Object.entries(running)
            .map(([part, p]) => `--- ${part} (ended: ${p.ended() ?? 'no'}):\n${p.output().slice(-3000)}`)
            .join('\n');
        // A part that exits fails the order at once, with what each part said.
        let ended!: (err: Error) => void;
        const died = new Promise<never>((_, reject) => (ended = reject));
        died.catch(() => {});
        const launch = (part: Part, args: string[]): Launched => {
          const p = launchCincy(args, cleanup);
          p.child.once('exit', () => ended(new Error(`${part} exited:\n${outputs()}`)));
          return (running[part] = p);
        };
        /** Until a process says what it is at: with a server it needs not there yet, that it waits for it. */
        const atWork = (p: Launched, said: RegExp, what: string): Promise<unknown> =>
          Promise.race([died, until(what, async () => said.test(p.output()), 60_000, CHEAP_POLL_MS)]);
        const opened = { api: false, cluster: false };
        const start: Record<Part, () => Promise<unknown>> = {
          'API server': async () => ((opened.api = true), apiGate.open()),
          'update service': async () => serviceGate.open(),
          'simulated cluster': () => {
            opened.cluster = true;
            const p = launch('simulated cluster', [
              ...['mock-cluster', '--kubeconfig', gatedKubeconfig],
              ...clusterFlags(service, fixtures.payloads, 1),
            ]);
            return opened.api
              ? atWork(p, /simulating on/, 'the simulated cluster at work')
              : atWork(p, /waiting for the API server/, 'the simulated cluster waiting for its API server');
          },
          agent: () => {
            const p = launch('agent', [
              ...['agent', '--kubeconfig', gatedKubeconfig, '--interval', '1', '--payload-store', fixtures.payloads],
              ...['--trust-keys', fixtures.trust, '--signature-store', `${service}/signatures`],
            ]);
            if (!opened.api)
              return atWork(p, /the ClusterVersion cannot be read/, 'the agent waiting for the API server');
            if (!opened.cluster)
              return atWork(p, /No cluster version object, waiting for one/, 'the agent waiting for a ClusterVersion');
            return atWork(p, /"msg"/, 'the agent started (its first log line)');
          },
        };
        apiGate.shut();
        serviceGate.shut();
        for (const part of order) await start[part]();
        // Settled: the agent has polled the update service, and nothing has changed for SETTLED_MS since.
        let last = { at: Date.now(), text: '' };
        const settled = await Promise.race([
          died,
          until(
            `a settled ClusterVersion after the order ${order.join(' → ')}`,
            async () => {
              const cv = await clusterVersion();
              const retrieved = cv?.status?.conditions?.find((c) => c.type === 'RetrievedUpdates');
              if (!cv || retrieved?.status !== 'True') return false;
              const text = JSON.stringify(withoutTimes(cv));
              if (text !== last.text) last = { at: Date.now(), text };
              return Date.now() - last.at >= SETTLED_MS && cv;
            },
            90_000,
            CHEAP_POLL_MS,
          ),
        ]);
        statuses.set(order.join(' → '), withoutTimes({ spec: settled.spec, status: settled.status }));
        // Nothing of this order reaches the next one: the servers out of reach, the processes gone.
        apiGate.shut();
        serviceGate.shut();
        ended = () => {};
        await Promise.all(
          Object.values(running).map(
            (p) => p.ended() ?? new Promise((resolve) => (p.child.once('exit', resolve), p.child.kill('SIGKILL'))),
          ),
        );
      },
      180_000,
    );

  it('ended in the same ClusterVersion in every order', () => {
    const [first, ...rest] = [...statuses.entries()];
    expect(statuses.size).toBe(24);
    const cv = first![1] as ClusterVersion;
    // Not an empty agreement: the cluster's status, the executor's conditions and the update service's answer.
    expect(cv.status.availableUpdates?.length).toBeGreaterThan(0);
    expect(Object.fromEntries((cv.status.conditions ?? []).map((c) => [c.type, c.status]))).toMatchObject({
      Available: 'True',
      Failing: 'False',
      Progressing: 'False',
      ReleaseAccepted: 'True',
      RetrievedUpdates: 'True',
      Upgradeable: 'True',
    });
    for (const [order, status] of rest) expect(status, order).toEqual(first![1]);
  });
});
