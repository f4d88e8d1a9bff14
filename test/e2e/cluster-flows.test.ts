// The agent's and `adm upgrade`'s flows on both API servers, as processes, as a user runs them: the mock
// cluster's own server, and a real kube-apiserver (../shared/kube) with the simulator's controllers playing
// operators and nodes there (`mock-cluster --kubeconfig`). On each: a poll, `adm upgrade` (report, channel,
// recommend, --to, --to-image, --clear, status), an update to Completed with the release image pulled by
// digest from a real registry by the agent itself (it runs outside the cluster), a kill -9 of the agent mid-
// update, `get clusterversion -o wide`; and an update coordinated by workload locks. What the commands print is then compared between the two servers:
// where they differ, the mock is wrong.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCincy, until as waitUntil } from '../support/processes.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../src/agent/clusterVersion.js';
import { droppedFields } from '../../src/cluster/dropped.js';
import { PayloadStore } from '../../src/payload/store.js';
import { cincy, cincyAsync, serveCli, useCleanup } from '../support/cli.js';
import { kubectl, kubectlAvailable } from '../support/kubectl.js';
import { serveMock } from '../support/mock.js';
import { realApiServerAvailable, useRealApiServer } from '../support/realApiServer.js';
import { registryAvailable, startRegistry, type TestRegistry } from '../support/registry.js';
import { tempDir } from '../support/server.js';
import { clusterFlags, image, KID, SIGNED, writeUpdateTree } from '../support/updateFixtures.js';

const cleanup = useCleanup();
/** One real API server for the file's tests on it, each beginning on a server reset to no cluster. */
const realApiServer = useRealApiServer();
const TARGET = '4.16.5';
const SCALE = 600;

type ServerKind = 'mock' | 'real';
const fixtures = { trust: '', tree: '', target: '', server: '' };
let registry: TestRegistry;
/** What each command printed, by server: compared at the end. */
const printed: Record<ServerKind, Record<string, string>> = { mock: {}, real: {} };
/** How long the update took on each server, in real seconds (for the record). */
const durations: Partial<Record<ServerKind, number>> = {};

const until = <T>(what: string, f: () => Promise<T | undefined | false>, timeoutMs = 120_000): Promise<T> =>
  waitUntil(what, f, timeoutMs);

const available = (): boolean => {
  // Evaluated at collection: under CI=true a missing component fails here rather than skip.
  const all = [realApiServerAvailable(), kubectlAvailable(), registryAvailable()];
  return all.every(Boolean);
};

describe.runIf(available())('the same flows on the mock cluster and on a real API server', () => {
  beforeAll(async () => {
    const dir = tempDir();
    // Shared by both tests: stopped once they are done, not after the first.
    const stopped: Array<() => unknown> = [];
    const shared = { add: (f: () => unknown) => void stopped.push(f) };
    const keys = join(dir.path, 'keys');
    expect(cincy(['keys', 'generate', '--kid', KID, '--out', keys]).code).toBe(0);
    fixtures.trust = join(dir.path, 'trust');
    mkdirSync(fixtures.trust);
    copyFileSync(join(keys, `${KID}.jwks.json`), join(fixtures.trust, `${KID}.jwks.json`));
    mkdirSync(join(dir.path, 'registry'));
    registry = await startRegistry({ dir: join(dir.path, 'registry') }, shared);
    // The target release only in the registry: each agent pulls it from there, by digest.
    const pushed = await cincyAsync([
      'payload',
      'push',
      '--version',
      TARGET,
      '--previous',
      '4.15.9',
      '--registry',
      registry.reference('ocp/release'),
      '--no-store',
    ]);
    expect(pushed.code, pushed.stderr).toBe(0);
    fixtures.target = pushed.stdout.trim();
    const signatures: Record<string, string> = {};
    for (const v of SIGNED) {
      const out = join(dir.path, `sig-${v}`);
      const payload = v === TARGET ? fixtures.target : image(v);
      expect(
        cincy(['sign', '--key', join(keys, `${KID}.private.jwk.json`), '--payload', payload, '--out', out]).code,
      ).toBe(0);
      signatures[v] = readFileSync(out, 'utf8');
    }
    fixtures.tree = writeUpdateTree(join(dir.path, 'tree'), signatures, { version: TARGET, payload: fixtures.target });
    fixtures.server = (
      await serveCli(
        [
          ...['--db', ':memory:', '--graph-data', fixtures.tree, '--trust-keys', fixtures.trust],
          ...['--releases', registry.reference('ocp/release')],
        ],
        shared,
      )
    ).url;
    return async () => {
      for (const f of stopped.reverse()) await f();
      dir.remove();
    };
  }, 180_000);

  /** A cluster at 4.15.9 in stable-4.16 on `kind` (with `more` flags of mock-cluster); its kubeconfig. */
  async function cluster(kind: ServerKind, more: string[] = []): Promise<string> {
    const dir = cleanup.dir();
    const flags = [
      ...clusterFlags(fixtures.server, join(dir, 'host'), SCALE),
      ...['--registry-plain-http', registry.host, ...more],
    ];
    if (kind === 'mock') return (await serveMock(flags, dir, cleanup)).kubeconfig;
    const api = await realApiServer();
    await startCincy(['mock-cluster', '--kubeconfig', api.kubeconfig, ...flags], /simulating on \S+/, cleanup);
    return api.kubeconfig;
  }

  /** The agent outside the cluster: it pulls release images itself, by digest, into `store`. */
  const agentFlags = (kubeconfig: string, store: string): string[] => [
    ...['agent', '--kubeconfig', kubeconfig, '--interval', '1', '--payload-store', store],
    ...['--payload-retrieval', 'pull', '--registry-plain-http', registry.host],
    ...['--trust-keys', fixtures.trust, '--signature-store', `${fixtures.server}/signatures`, '--follow-mock-clock'],
  ];

  for (const kind of ['mock', 'real'] as const)
    it(`${kind}: an update coordinated by workload locks: maintenance requested, the update to the end, the maintenance ended`, async () => {
      // The lock kinds' CRDs are the project's own definitions, made on the server by mock-cluster.
      const kubeconfig = await cluster(kind, ['--workload-locks', 'openstack,ceph']);
      const k = async (...args: string[]): Promise<string> => {
        const r = await kubectl(kubeconfig, args);
        if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
        return r.stdout;
      };
      expect(await k('get', 'crd', 'clusterworkloadlocks.lcm.mirantis.com', '-o', 'name')).toContain(
        'clusterworkloadlocks',
      );
      await startCincy(agentFlags(kubeconfig, cleanup.dir()), /"msg":"poll"/, cleanup);
      await until('the update offered', async () =>
        (await k('get', 'clusterversion', 'version', '-o', 'jsonpath={.status.availableUpdates[*].version}')).includes(
          TARGET,
        ),
      );
      expect((await cincyAsync(['adm', 'upgrade', '--to', TARGET, '--kubeconfig', kubeconfig])).code).toBe(0);
      const requested = await until('the maintenance requested', async () =>
        (await k('get', 'clustermaintenancerequests', '-o', 'name')).trim(),
      );
      expect(requested).toMatch(/^clustermaintenancerequest/);
      await until(
        'the update completed',
        async () =>
          (await k(
            'get',
            'clusterversion',
            'version',
            '-o',
            'jsonpath={.status.history[0].state} {.status.history[0].version}',
          )) === `Completed ${TARGET}`,
        300_000,
      );
      // The maintenance ended: no request left, every lock active again.
      await until(
        'the request removed',
        async () => (await k('get', 'clustermaintenancerequests', '-o', 'name')).trim() === '',
      );
      const states = await until('the locks active', async () => {
        const s = (await k('get', 'clusterworkloadlocks', '-o', 'jsonpath={.items[*].status.state}')).split(' ');
        return s.every((x) => x === 'active') && s;
      });
      expect(states.length).toBe(2);
      const report = await cincyAsync(['get', 'maintenance', '--kubeconfig', kubeconfig]);
      expect(report.code, report.stderr).toBe(0);
      printed[kind]['get maintenance'] = report.stdout.replace(/\b\d+[smhd](\d+[smhd])?\b/g, '<age>');
    }, 600_000);

  for (const kind of ['mock', 'real'] as const)
    it(`${kind}: a poll, adm upgrade, and an update to the end through a kill -9 of the agent`, async () => {
      const kubeconfig = await cluster(kind);
      const said = printed[kind];
      const k = async (...args: string[]): Promise<string> => {
        const r = await kubectl(kubeconfig, args);
        if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
        return r.stdout;
      };
      const cv = async (): Promise<ClusterVersion> =>
        JSON.parse(await k('get', 'clusterversion', 'version', '-o', 'json')) as ClusterVersion;
      const run = async (name: string, args: string[]): Promise<{ code: number | null; stdout: string }> => {
        const r = await cincyAsync([...args, '--kubeconfig', kubeconfig]);
        // What differs by run and not by server: a log line's time and process id.
        said[name] = `exit ${r.code}\n${r.stdout}${r.stderr}`.replace(/"(time|pid)":\d+/g, '"$1":N');
        return r;
      };

      // A poll: the update lists, the generation observed, RetrievedUpdates=True without empty words.
      expect((await run('agent --once', ['agent', '--once'])).code).toBe(0);
      const polled = await cv();
      const why = `${said['agent --once']}${JSON.stringify(polled.status.conditions)}`;
      expect(polled.status.availableUpdates?.map((u) => u.version) ?? [], why).toContain(TARGET);
      expect(polled.status.observedGeneration).toBe(polled.metadata.generation);
      const retrieved = polled.status.conditions?.find((c) => c.type === 'RetrievedUpdates');
      expect(retrieved && Object.keys(retrieved).sort()).toEqual(['lastTransitionTime', 'status', 'type']);

      // adm upgrade, as oc's users type it.
      expect((await run('report', ['adm', 'upgrade'])).stdout).toMatch(/^Cluster version is 4\.15\.9\n/);
      expect((await run('channel unlisted', ['adm', 'upgrade', 'channel', 'candidate-4.16'])).code).not.toBe(0);
      const explicitChannel = ['adm', 'upgrade', 'channel', 'candidate-4.16', '--allow-explicit-channel'];
      expect((await run('channel explicit', explicitChannel)).code, said['channel explicit']).toBe(0);
      expect((await cv()).spec.channel).toBe('candidate-4.16');
      expect((await run('channel stable', ['adm', 'upgrade', 'channel', 'stable-4.16'])).code).toBe(0);
      await run('recommend', ['adm', 'upgrade', 'recommend']);
      expect((await run('--to', ['adm', 'upgrade', '--to', TARGET])).stdout).toBe(`Requested update to ${TARGET}\n`);
      expect((await run('--clear', ['adm', 'upgrade', '--clear'])).stdout).toBe(
        `Cancelled requested upgrade to ${TARGET}\n`,
      );
      // An image the update service does not list is refused unless explicitly allowed.
      const unlisted = `${registry.host}/ocp/release@sha256:${'e'.repeat(64)}`;
      expect((await run('--to-image refused', ['adm', 'upgrade', '--to-image', unlisted])).code).not.toBe(0);
      const explicit = ['adm', 'upgrade', '--to-image', unlisted, '--allow-explicit-upgrade'];
      expect((await run('--to-image', explicit)).code, said['--to-image']).toBe(0);
      expect((await cv()).spec.desiredUpdate?.image).toBe(unlisted);
      expect((await run('--clear again', ['adm', 'upgrade', '--clear'])).code).toBe(0);
      expect((await cv()).spec.desiredUpdate).toBeUndefined();

      // The update: the agent outside the cluster pulls the release image itself, by digest.
      const store = cleanup.dir();
      const agentArgs = agentFlags(kubeconfig, store);
      const first = await startCincy(agentArgs, /"msg":"poll"/, cleanup);
      const began = Date.now();
      expect((await run('--to for real', ['adm', 'upgrade', '--to', TARGET])).code).toBe(0);
      await until('the update under way', async () => {
        const p = (await cv()).status.conditions?.find((c) => c.type === 'Progressing')?.message ?? '';
        const m = /Working towards 4\.16\.5: (\d+) of (\d+) done/.exec(p);
        return m && Number(m[1]) > 0 && Number(m[1]) < Number(m[2]);
      });
      expect(first.output()).toContain('payload pulled from its registry');
      expect(new PayloadStore(store).has(fixtures.target)).toBe(true);
      const status = await cincyAsync(['adm', 'upgrade', 'status', '--kubeconfig', kubeconfig]);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain(TARGET);
      first.child.kill('SIGKILL');

      // Killed mid-update and started again: it goes on where the cluster says it was, to the end.
      const second = await startCincy(agentArgs, /"msg":"poll"/, cleanup);
      const done = await until(
        'the update completed',
        async () => {
          const c = await cv();
          return c.status.history?.[0]?.version === TARGET && c.status.history[0].state === 'Completed' && c;
        },
        300_000,
      );
      durations[kind] = (Date.now() - began) / 1000;
      expect(second.output()).toContain('resuming the update where it was');
      expect(done.status.history?.[0]).toMatchObject({ image: fixtures.target, verified: true });
      expect(done.status.conditions?.find((c) => c.type === 'Failing')?.status).toBe('False');

      // Every CRD of the payload stored as the payload has it, x-kubernetes-* keys included.
      const crds = new PayloadStore(store)
        .load(fixtures.target)
        .manifests.flatMap((m) => m.docs as Array<{ kind?: string; metadata: { name: string }; spec?: unknown }>)
        .filter((d) => d.kind === 'CustomResourceDefinition');
      expect(crds.length).toBeGreaterThan(5);
      for (const crd of crds) {
        const stored = JSON.parse(await k('get', 'crd', crd.metadata.name, '-o', 'json')) as { spec: unknown };
        expect(droppedFields(crd.spec, stored.spec), crd.metadata.name).toEqual([]);
      }

      // The times written are not in the future of the wall clock (oc would show <invalid>).
      const times = [
        ...(done.status.conditions ?? []).map((c) => c.lastTransitionTime),
        ...(done.status.history ?? []).flatMap((h) => [h.startedTime, h.completionTime ?? '']),
      ].filter(Boolean);
      for (const t of times) expect(Date.parse(t)).toBeLessThanOrEqual(Date.now() + 2_000);

      const wide = await run('get -o wide', ['get', 'clusterversion', '-o', 'wide']);
      expect(wide.stdout).toMatch(/^NAME\s+VERSION\s+AVAILABLE\s+PROGRESSING\s+SINCE\s+STATUS\nversion\s+4\.16\.5\s/);
      said['get -o wide'] = wide.stdout.replace(/\s{3,}\S+\s{3,}Cluster/, ' <age> Cluster'); // ages differ
    }, 600_000);

  it('printed the same on both servers', () => {
    console.log(`update to ${TARGET}: mock ${durations.mock?.toFixed(1)} s, real ${durations.real?.toFixed(1)} s`);
    expect(Object.keys(printed.real)).toEqual(Object.keys(printed.mock));
    const differing = Object.keys(printed.mock).filter((name) => printed.real[name] !== printed.mock[name]);
    expect(
      differing.map((name) => ({ name, mock: printed.mock[name], real: printed.real[name] })),
      'commands that printed differently',
    ).toEqual([]);
  });
});
