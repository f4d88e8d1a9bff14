// Fleet reports end to end, as processes on a real API server (../shared/kube): a simulated cluster
// (`mock-cluster --kubeconfig`) updated by `cincy agent` and `adm upgrade`, and `cincy report` reading it
// with the read-only service account of deploy/reporter (applied with `kubectl apply -k`, its token from
// the TokenRequest API), sending to `cincy serve` with a token bound to the cluster's id. The fleet then
// shows the update completed with the duration of the ClusterVersion's history; an update held by a
// degraded operator shows as failing, and halts the phased rollout its cluster took.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../src/agent/clusterVersion.js';
import { cincy, cincyAsync, serveCli, useCleanup } from '../support/cli.js';
import { kubectl, kubectlAvailable } from '../support/kubectl.js';
import { startCincy, until } from '../support/processes.js';
import { realApiServerAvailable, useRealApiServer } from '../support/realApiServer.js';
import { tempDir } from '../support/server.js';
import { clusterFlags, makeUpdateFixtures, type UpdateFixtures } from '../support/updateFixtures.js';

const cleanup = useCleanup();
const realApiServer = useRealApiServer();
const ROOT = join(import.meta.dirname, '..', '..');
const SCALE = 600;
const NAMESPACE = 'cincy-reporter';
const dir = tempDir();
let fixtures: UpdateFixtures;
let server = '';
let secret = '';

const available = (): boolean => [realApiServerAvailable(), kubectlAvailable()].every(Boolean);

/* eslint-disable @typescript-eslint/no-explicit-any -- the API's answers are read as JSON */
describe.runIf(available())('cincy report from a cluster on a real API server', () => {
  beforeAll(async () => {
    fixtures = await makeUpdateFixtures(dir.path);
    secret = join(dir.path, 'secret');
    writeFileSync(secret, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    const stopped: Array<() => unknown> = [];
    server = (
      await serveCli(
        [
          ...['--db', join(dir.path, 'store.db'), '--graph-data', fixtures.tree, '--trust-keys', fixtures.trust],
          ...['--admin-jwt-secret-file', secret, '--fleet-flush-interval', '1s'],
        ],
        { add: (f) => void stopped.push(f) },
      )
    ).url;
    return async () => {
      for (const f of stopped.reverse()) await f();
      dir.remove();
    };
  }, 120_000);

  const k = async (kubeconfig: string, ...args: string[]): Promise<string> => {
    const r = await kubectl(kubeconfig, args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const fleet = async (path: string): Promise<any> => {
    const read = cincy(['token', 'create', '--admin-jwt-secret-file', secret, '--scope', 'fleet:read']).stdout.trim();
    const res = await fetch(`${server}${path}`, { headers: { authorization: `Bearer ${read}` } });
    expect(res.status).toBe(200);
    return res.json();
  };

  /** The cluster as the fleet shows it once it reported its update standing as `state`. */
  const reportedAs = (id: string, state: string): Promise<any> =>
    until(
      `the update reported ${state}`,
      async () => {
        const c = (await fleet(`/api/v1/fleet/clusters?id=${id}`)).clusters[0];
        return c?.reported?.update?.state === state && c;
      },
      180_000,
    );

  /**
   * A cluster at 4.15.9 on the real API server (with `scenario` for its operators), the reporter's
   * objects applied from deploy/reporter, and `cincy report` running as that service account, or (`by:
   * 'agent'`) the agent reporting beside its polls; the cluster's kubeconfig and id.
   */
  async function reportingCluster(
    scenario?: object,
    by: 'cincy report' | 'agent' = 'cincy report',
  ): Promise<{ kubeconfig: string; id: string }> {
    const api = await realApiServer();
    const d = cleanup.dir();
    const flags = clusterFlags(server, fixtures.payloads, SCALE);
    if (scenario) {
      writeFileSync(join(d, 'scenario.yaml'), stringifyYaml(scenario));
      flags.push('--scenario', join(d, 'scenario.yaml'));
    }
    await startCincy(['mock-cluster', '--kubeconfig', api.kubeconfig, ...flags], /simulating on \S+/, cleanup);
    const admin = api.kubeconfig;
    if (!(await kubectl(admin, ['get', 'namespace', NAMESPACE])).stdout)
      await k(admin, 'create', 'namespace', NAMESPACE);
    await k(admin, 'apply', '-k', join(ROOT, 'deploy', 'reporter'));
    // The service account reads, and writes nothing.
    const as = `--as=system:serviceaccount:${NAMESPACE}:cincy-reporter`;
    expect(
      (await kubectl(admin, ['auth', 'can-i', 'list', 'clusteroperators.config.openshift.io', as])).stdout.trim(),
    ).toBe('yes');
    expect(
      (await kubectl(admin, ['auth', 'can-i', 'patch', 'clusterversions.config.openshift.io', as])).stdout.trim(),
    ).toBe('no');
    const saToken = (await k(admin, 'create', 'token', 'cincy-reporter', '-n', NAMESPACE)).trim();
    const config = parseYaml(readFileSync(admin, 'utf8'));
    const user = config.contexts[0].context.user;
    config.users = [{ name: user, user: { token: saToken } }];
    const readOnly = join(d, 'reporter.kubeconfig');
    writeFileSync(readOnly, stringifyYaml(config));

    const id = (await k(admin, 'get', 'clusterversion', 'version', '-o', 'jsonpath={.spec.clusterID}')).trim();
    const minted = cincy([
      'token',
      'create',
      '--admin-jwt-secret-file',
      secret,
      '--scope',
      'fleet:report',
      '--cluster-id',
      id,
    ]);
    expect(minted.code, minted.stderr).toBe(0);
    const tokenFile = join(d, 'report-token');
    writeFileSync(tokenFile, minted.stdout);
    // As the Deployment runs it (its args), with the service account's kubeconfig in place of --in-cluster.
    const deployment = parseYaml(readFileSync(join(ROOT, 'deploy', 'reporter', 'deployment.yaml'), 'utf8'));
    const args: string[] = deployment.spec.template.spec.containers[0].args;
    expect(args.slice(0, 2)).toEqual(['report', '--in-cluster']);
    if (by === 'cincy report')
      await startCincy(
        [...['report', '--kubeconfig', readOnly, '--token-file', tokenFile, '--server', server], ...['--check', '6s']],
        new RegExp(`reported ${id}`),
        cleanup,
      );
    const agent = [
      ...['agent', '--kubeconfig', admin, '--interval', '1', '--payload-store', fixtures.payloads],
      ...['--payload-retrieval', 'pull', '--trust-keys', fixtures.trust],
      ...['--signature-store', `${server}/signatures`, '--follow-mock-clock'],
      ...(by === 'agent' ? ['--report-to', server, '--report-token-file', tokenFile] : []),
    ];
    await startCincy(agent, by === 'agent' ? new RegExp(`reported ${id}`) : /"msg":"poll"/, cleanup);
    return { kubeconfig: admin, id };
  }

  it('shows the update completed, with the duration the ClusterVersion history gives', async () => {
    const { kubeconfig, id } = await reportingCluster();
    expect((await cincyAsync(['adm', 'upgrade', '--to', '4.16.5', '--kubeconfig', kubeconfig])).code).toBe(0);
    const reported = await reportedAs(id, 'completed');
    const cv = JSON.parse(await k(kubeconfig, 'get', 'clusterversion', 'version', '-o', 'json')) as ClusterVersion;
    const entry = cv.status.history![0]!;
    expect(entry).toMatchObject({ state: 'Completed', version: '4.16.5' });
    const seconds = (Date.parse(entry.completionTime!) - Date.parse(entry.startedTime)) / 1000;
    expect(reported.reported).toMatchObject({
      version: '4.16.5',
      channel: 'stable-4.16',
      update: { from: '4.15.9', to: '4.16.5', startedAt: new Date(entry.startedTime).toISOString() },
    });
    expect(reported.reported.conditions).toContainEqual(expect.objectContaining({ type: 'Failing', status: 'False' }));
    // The cluster polls the graph too (the agent does, with its id): one cluster, seen both ways.
    const edge = await until('the edge in /fleet/updates', async () =>
      (await fleet('/api/v1/fleet/updates')).updates.find((u: any) => u.to === '4.16.5' && u.arch === 'amd64'),
    );
    expect(edge).toMatchObject({ from: '4.15.9', started: 1, completed: 1, failing: 0, medianSeconds: seconds });
    console.log(`update 4.15.9 → 4.16.5 reported completed in ${seconds} s of the cluster's (simulated) time`);
  }, 300_000);

  it('shows an update held by a degraded operator as failing, from the agent reporting beside its polls', async () => {
    const degraded = { operators: { console: { behavior: 'degraded' } } };
    const { kubeconfig, id } = await reportingCluster(degraded, 'agent');
    expect((await cincyAsync(['adm', 'upgrade', '--to', '4.16.5', '--kubeconfig', kubeconfig])).code).toBe(0);
    const failing = await reportedAs(id, 'failing');
    expect(failing.reported.update).toMatchObject({ from: '4.15.9', to: '4.16.5', reason: 'ClusterOperatorDegraded' });
    expect(failing.reported.operators.degraded).toEqual(['console']);
    const edge = (await fleet('/api/v1/fleet/updates')).updates.find((u: any) => u.to === '4.16.5' && u.failing > 0);
    expect(edge).toMatchObject({ from: '4.15.9', failing: 1 });
  }, 300_000);

  it('halts a phased rollout whose cluster fails on its edge, and serves the edge to every cluster at risk', async () => {
    const degraded = { operators: { console: { behavior: 'degraded' } } };
    const { kubeconfig, id } = await reportingCluster(degraded);
    // The cluster is the rollout's canary: offered the edge from the start, every other cluster an hour later.
    const writer = cincy(['token', 'create', '--admin-jwt-secret-file', secret, '--scope', 'rollouts:write']);
    const declared = await cincyAsync(
      [
        ...['rollout', 'declare', '--channel', 'stable-4.16', '--to', '4.16.5', '--duration', 'PT1H'],
        ...['--canary', id, '--halt-after-failures', '1', '-o', 'json'],
      ],
      { CINCY_SERVER: server, CINCY_TOKEN: writer.stdout.trim() },
    );
    expect(declared.code, declared.stderr).toBe(0);
    const rollout = JSON.parse(declared.stdout);
    const edgeFor = async (cluster?: string): Promise<{ edge: boolean; risks: string[] }> => {
      const q = `channel=stable-4.16&arch=amd64&version=4.15.9${cluster ? `&id=${cluster}` : ''}`;
      const doc = (await (
        await fetch(`${server}/graph?${q}`, { headers: { accept: 'application/json' } })
      ).json()) as any;
      const v = doc.nodes.map((n: any) => n.version);
      const edge = doc.edges.some(([f, t]: [number, number]) => v[f] === '4.15.9' && v[t] === '4.16.5');
      const risks = doc.conditionalEdges
        .filter((c: any) => c.edges.some((e: any) => e.from === '4.15.9' && e.to === '4.16.5'))
        .flatMap((c: any) => c.risks.map((r: any) => r.name));
      return { edge, risks };
    };
    expect(await edgeFor(id)).toEqual({ edge: true, risks: [] });
    expect(await edgeFor()).toEqual({ edge: false, risks: [] });
    // The agent sees it in the ClusterVersion the real API server holds, and the administrator takes it.
    await until('the edge in availableUpdates', async () => {
      const cv = JSON.parse(await k(kubeconfig, 'get', 'clusterversion', 'version', '-o', 'json')) as ClusterVersion;
      return (cv.status.availableUpdates ?? []).some((u) => u.version === '4.16.5') || undefined;
    });
    expect((await cincyAsync(['adm', 'upgrade', '--to', '4.16.5', '--kubeconfig', kubeconfig])).code).toBe(0);

    const failing = await reportedAs(id, 'failing');
    const reportedAt = Date.parse(failing.reported.reportedAt);
    const halted = await until(
      'the risk served',
      async () => {
        const seen = await edgeFor();
        return seen.risks.includes('PhasedRolloutHalted') && { seen, at: Date.now() };
      },
      60_000,
    );
    console.log(
      `phased rollout halted: the risk served ${((halted.at - reportedAt) / 1000).toFixed(1)} s after the failing report was taken (bound 30 s)`,
    );
    expect(halted.seen).toEqual({ edge: false, risks: ['PhasedRolloutHalted'] });
    expect(await edgeFor(id)).toEqual({ edge: false, risks: ['PhasedRolloutHalted'] });
    const shown = JSON.parse(
      (await cincyAsync(['rollout', 'get', rollout.id, '-o', 'json'], { CINCY_SERVER: server })).stdout,
    );
    expect(shown).toMatchObject({ state: 'halted', haltCounts: { took: 1, failing: 1 } });
  }, 300_000);
});
