// Executing an update end to end, all as processes, as a user runs them: `cincy serve` with signed
// releases, `cincy payload create`, `cincy mock-cluster` on a simulated clock, `cincy agent` acting as
// the cluster-version-operator, and `cincy adm upgrade --to`. The clock runs hundreds of times faster
// than real time, so a 90-minute update takes seconds. Where Debian's docker-registry is installed, the
// target release goes through a registry as on a real cluster: pushed with `cincy payload push`, its
// record scraped by `cincy serve --releases`, its payload pulled by the mock cluster's payload Job. The
// other update scenarios run in-process (test/service/agent/update/operator.test.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../src/agent/clusterVersion.js';
import { documentCount, loadPayload } from '../../src/payload/load.js';
import { PayloadStore } from '../../src/payload/store.js';
import { cincy, cincyAsync, serveCli, useCleanup } from '../support/cli.js';
import { serveMock, type Mock, CV } from '../support/mock.js';
import { tempDir } from '../support/server.js';
import { registryAvailable, startRegistry, type TestRegistry } from '../support/registry.js';
import {
  breakPayload,
  clusterFlags,
  image,
  KID,
  payloadVersions,
  SIGNED,
  writeUpdateTree,
} from '../support/updateFixtures.js';

const cleanup = useCleanup();
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'cincy.js');
const TARGET = '4.16.5';
/** Keys, signatures, payloads and a graph shared by every test: made once with the CLI. */
const shared = { dir: '', trust: '', payloads: '', tree: '', target: image(TARGET) };
/** The registry the target release is pushed to and pulled from, where docker-registry is installed. */
let registry: TestRegistry | undefined;

beforeAll(async () => {
  const dir = tempDir();
  const stopped: Array<() => unknown> = [];
  shared.dir = dir.path;
  const keys = join(dir.path, 'keys');
  expect(cincy(['keys', 'generate', '--kid', KID, '--out', keys]).code).toBe(0);
  shared.trust = join(dir.path, 'trust');
  mkdirSync(shared.trust);
  copyFileSync(join(keys, `${KID}.jwks.json`), join(shared.trust, `${KID}.jwks.json`));
  shared.payloads = join(dir.path, 'payloads');
  const made = await Promise.all(
    payloadVersions().map(([v, madeAs]) =>
      cincyAsync(['payload', 'create', '--version', madeAs, '--image', image(v), '--store', shared.payloads]),
    ),
  );
  for (const r of made) expect(r.code, r.stderr).toBe(0);
  breakPayload(shared.payloads);
  if (registryAvailable()) {
    mkdirSync(join(dir.path, 'registry'));
    registry = await startRegistry({ dir: join(dir.path, 'registry') }, { add: (f) => void stopped.push(f) });
    // Not into the payload store: the cluster's Job is to pull it.
    const pushed = await cincyAsync([
      'payload',
      'push',
      '--version',
      TARGET,
      '--previous',
      '4.15.9',
      '--url',
      `https://errata.example/${TARGET}`,
      '--registry',
      registry.reference('ocp/release'),
      '--no-store',
    ]);
    expect(pushed.code, pushed.stderr).toBe(0);
    shared.target = pushed.stdout.trim();
  }
  const signatures: Record<string, string> = {};
  const signed: Array<[string, string]> = SIGNED.map((v) => [v, v === TARGET ? shared.target : image(v)]);
  for (const [v, payload] of signed) {
    const out = join(dir.path, `sig-${v}`);
    expect(
      cincy(['sign', '--key', join(keys, `${KID}.private.jwk.json`), '--payload', payload, '--out', out]).code,
    ).toBe(0);
    signatures[v] = readFileSync(out, 'utf8');
  }
  shared.tree = writeUpdateTree(
    join(dir.path, 'tree'),
    signatures,
    registry ? { version: TARGET, payload: shared.target } : undefined,
  );
  return async () => {
    for (const f of stopped) await f();
    dir.remove();
  };
}, 120_000);

interface Agent {
  child: ChildProcess;
  lines(): Array<{ msg: string; [key: string]: unknown }>;
  kill(): void;
}

function startAgent(m: Mock, server: string): Agent {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'agent',
      '--kubeconfig',
      m.kubeconfig,
      '--interval',
      '1',
      '--payload-store',
      shared.payloads,
      '--trust-keys',
      shared.trust,
      '--signature-store',
      `${server}/signatures`,
      '--log-level',
      'debug',
      '--follow-mock-clock',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const kill = (): void => void child.kill('SIGKILL');
  cleanup.add(kill);
  return {
    child,
    kill,
    lines: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg: string }),
  };
}

interface Rig {
  m: Mock;
  server: string;
  agent: Agent;
  cv(): Promise<ClusterVersion>;
  upgrade(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  until<T>(what: string, f: () => Promise<T | undefined | false>, timeoutMs?: number): Promise<T>;
}

async function rig(opts: { scale: number; scenario?: object }): Promise<Rig> {
  const releases = registry ? ['--releases', registry.reference('ocp/release')] : [];
  const server = (
    await serveCli(
      ['--db', ':memory:', '--graph-data', shared.tree, '--trust-keys', shared.trust, ...releases],
      cleanup,
    )
  ).url;
  const dir = cleanup.dir();
  const scenario = opts.scenario ? [join(dir, 'scenario.yaml')] : [];
  if (opts.scenario) writeFileSync(scenario[0]!, JSON.stringify(opts.scenario));
  const m = await serveMock(
    [
      ...clusterFlags(server, shared.payloads, opts.scale),
      '--state',
      join(dir, 'state.json'),
      ...(opts.scenario ? ['--scenario', scenario[0]!] : []),
      ...(registry ? ['--registry-plain-http', registry.host] : []),
    ],
    dir,
    cleanup,
  );
  const custom = m.kc.makeApiClient(k8s.CustomObjectsApi);
  const cv = async (): Promise<ClusterVersion> => (await custom.getClusterCustomObject(CV)) as ClusterVersion;
  const until = async <T>(what: string, f: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await f();
      if (v) return v;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; status: ${JSON.stringify((await cv()).status.conditions)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const agent = startAgent(m, server);
  await until('the recommendations', async () =>
    (await cv()).status.availableUpdates?.some((u) => u.version === '4.16.5'),
  );
  return {
    m,
    server,
    agent,
    cv,
    until,
    upgrade: (...args) => cincyAsync(['adm', 'upgrade', '--kubeconfig', m.kubeconfig, ...args]),
  };
}

const condition = (cv: ClusterVersion, type: string) => cv.status.conditions?.find((c) => c.type === type);

interface Pool {
  metadata: { name: string };
  status: { machineCount: number; updatedMachineCount: number; configuration?: { name: string } };
  spec: { configuration?: { name: string } };
}

describe('executing an update on the mock cluster', () => {
  it('walks every step from adm upgrade --to to the last node, with the CVO handing over to its new self', async () => {
    // One worker reboots slowly, so the control plane is done long before the last node.
    const r = await rig({ scale: 600, scenario: { nodes: { 'worker-2': { reboot: '60m' } } } });
    const store = new PayloadStore(shared.payloads);
    const servedBefore = (await registry?.requests())?.length ?? 0;
    expect(store.has(shared.target)).toBe(!registry);
    const requested = await r.upgrade('--to', '4.16.5');
    expect(requested.stdout).toBe('Requested update to 4.16.5\n');

    const progressing = new Set<string>();
    let reportDuringUpdate = '';
    let poolsAtCompletion: Pool[] = [];
    const custom = r.m.kc.makeApiClient(k8s.CustomObjectsApi);
    const pools = async (): Promise<Pool[]> =>
      (
        (await custom.listClusterCustomObject({
          group: 'machineconfiguration.openshift.io',
          version: 'v1',
          plural: 'machineconfigpools',
        })) as { items: Pool[] }
      ).items;
    const completed = await r.until(
      'the control plane at 4.16.5',
      async () => {
        const cv = await r.cv();
        const p = condition(cv, 'Progressing');
        if (p?.status === 'True') {
          progressing.add(p.message);
          if (!reportDuringUpdate && /waiting on/.test(p.message)) reportDuringUpdate = (await r.upgrade()).stdout;
        }
        if (cv.status.history?.[0]?.version !== '4.16.5' || cv.status.history[0].state !== 'Completed')
          return undefined;
        poolsAtCompletion = await pools();
        return cv;
      },
      120_000,
    );

    // Steps 1, 2, 6: resolved from the recommendations, verified, recorded.
    const [entry, previous] = completed.status.history!;
    expect(entry).toMatchObject({ state: 'Completed', version: '4.16.5', image: shared.target, verified: true });
    expect(entry!.acceptedRisks).toBeUndefined();
    expect(Date.parse(entry!.completionTime!)).toBeGreaterThan(Date.parse(entry!.startedTime));
    expect(previous).toMatchObject({ version: '4.15.9', state: 'Completed' });
    expect(completed.status.desired).toMatchObject({
      version: '4.16.5',
      image: shared.target,
      url: 'https://errata.example/4.16.5',
    });
    expect(condition(completed, 'ReleaseAccepted')).toMatchObject({
      status: 'True',
      reason: 'PayloadLoaded',
      message: `Payload loaded version="4.16.5" image="${shared.target}" architecture="amd64"`,
    });
    expect(condition(completed, 'Progressing')).toMatchObject({
      status: 'False',
      message: 'Cluster version is 4.16.5',
    });
    expect(condition(completed, 'Available')).toMatchObject({ status: 'True', message: 'Done applying 4.16.5' });
    expect(condition(completed, 'Failing')).toMatchObject({ status: 'False' });

    // Step 3: the Job that extracted the payload.
    const jobs = await r.m.kc
      .makeApiClient(k8s.BatchV1Api)
      .listNamespacedJob({ namespace: 'openshift-cluster-version' });
    expect(jobs.items.map((j) => j.metadata!.name)).toEqual([
      expect.stringMatching(/^version-4\.16\.5-[a-z0-9]{1,5}$/),
    ]);

    if (registry) {
      // The Job pulled the release image the graph names (its manifest by digest, then its layer) into the store.
      const served = (await registry.requests()).slice(servedBefore);
      expect(served).toContainEqual(
        expect.objectContaining({
          method: 'GET',
          path: `/v2/ocp/release/manifests/${shared.target.split('@')[1]}`,
          status: 200,
        }),
      );
      expect(served.some((q) => /^\/v2\/ocp\/release\/blobs\/sha256:/.test(q.path) && q.status === 200)).toBe(true);
      expect(store.has(shared.target)).toBe(true);
    }
    // The payload's CVO runs the release image: `{{.ReleaseImage}}` rendered, when the payload was made before it.
    const cvo = await r.m.kc
      .makeApiClient(k8s.AppsV1Api)
      .readNamespacedDeployment({ namespace: 'openshift-cluster-version', name: 'cluster-version-operator' });
    expect(cvo.spec!.template.spec!.containers[0]).toMatchObject({
      image: shared.target,
      args: expect.arrayContaining([`--release-image=${shared.target}`]),
    });

    // Step 11: progress as the CVO words it, and as adm upgrade shows it.
    const total = documentCount(loadPayload(store.pathOf(shared.target)).manifests);
    const counts = [...progressing]
      .map((msg) => /^Working towards 4\.16\.5: (\d+) of (\d+) done \((\d+)% complete\)/.exec(msg))
      .filter((m) => m !== null);
    expect(counts.length).toBeGreaterThan(5);
    for (const m of counts) expect(Number(m[2])).toBe(total);
    expect([...progressing].some((msg) => /, waiting on [a-z-]+/.test(msg))).toBe(true);
    expect(reportDuringUpdate).toMatch(/^info: An upgrade is in progress\. Working towards 4\.16\.5: \d+ of \d+ done/);

    // Step 7: the apply log, in runlevel order; step 8: the CVO replaced itself and the new one resumed.
    const lines = r.agent.lines();
    const applied = lines.filter((l) => l.msg === 'applied') as unknown as Array<{ runlevel: number; file: string }>;
    expect(applied.length).toBe(total);
    for (let i = 1; i < applied.length; i++)
      expect(applied[i]!.runlevel).toBeGreaterThanOrEqual(applied[i - 1]!.runlevel);
    const handover = lines.findIndex((l) => l.msg.startsWith('the cluster-version-operator Deployment changed'));
    expect(handover).toBeGreaterThan(-1);
    expect(lines.slice(handover).some((l) => l.msg === 'resuming the update where it was')).toBe(true);
    expect(applied[0]!.file).toMatch(/^0000_00_cluster-version-operator_/);

    // Step 11: Completed while the slow worker was still updating.
    const worker = poolsAtCompletion.find((p) => p.metadata.name === 'worker')!;
    const master = poolsAtCompletion.find((p) => p.metadata.name === 'master')!;
    expect(master.status.updatedMachineCount).toBe(master.status.machineCount);
    expect(worker.status.updatedMachineCount).toBeLessThan(worker.status.machineCount);

    // The Machine Config Operator's rollout: every node ends on the new configuration.
    const done = await r.until(
      'every node updated',
      async () => {
        const ps = await pools();
        return (
          ps.every(
            (p) =>
              p.status.updatedMachineCount === p.status.machineCount &&
              p.status.configuration?.name === p.spec.configuration?.name,
          ) && ps
        );
      },
      60_000,
    );
    expect(done.map((p) => p.status.configuration?.name)).toEqual([
      expect.stringMatching(/^rendered-master-/),
      expect.stringMatching(/^rendered-worker-/),
    ]);
    const operators = (await custom.listClusterCustomObject({
      group: 'config.openshift.io',
      version: 'v1',
      plural: 'clusteroperators',
    })) as {
      items: Array<{ metadata: { name: string }; status: { versions: Array<{ name: string; version: string }> } }>;
    };
    for (const co of operators.items)
      expect(co.status.versions.find((v) => v.name === 'operator')?.version, co.metadata.name).toBe('4.16.5');
    const mcp = await cincyAsync(['get', 'mcp', '--kubeconfig', r.m.kubeconfig]);
    expect(mcp.stdout).toMatch(
      /^NAME\s+CONFIG\s+UPDATED\s+UPDATING\s+DEGRADED\s+MACHINECOUNT\s+READYMACHINECOUNT\s+UPDATEDMACHINECOUNT\s+DEGRADEDMACHINECOUNT\s+AGE\n/,
    );
    expect(mcp.stdout).toMatch(/\nworker\s+rendered-worker-\S+\s+True\s+False\s+False\s+3\s+3\s+3\s+0\s/);

    // After the update the CVO keeps the release's objects: a deleted one comes back.
    const manifests = loadPayload(store.pathOf(shared.target)).manifests;
    const cm = manifests.flatMap((m) => m.docs).find((d) => d.kind === 'ConfigMap' && d.metadata.namespace)!;
    const core = r.m.kc.makeApiClient(k8s.CoreV1Api);
    await core.deleteNamespacedConfigMap({ namespace: cm.metadata.namespace!, name: cm.metadata.name });
    await r.until(
      `${cm.metadata.name} back`,
      async () =>
        core
          .readNamespacedConfigMap({ namespace: cm.metadata.namespace!, name: cm.metadata.name })
          .catch(() => undefined),
      60_000,
    );
    const reconciled = await r.until('the reconcile pass', async () =>
      r.agent.lines().find((l) => l.msg === 'release reconciled' && (l as unknown as { created: number }).created > 0),
    );
    expect(reconciled).toMatchObject({ version: '4.16.5', manifests: total, created: 1 });

    // SIGTERM ends every wait of the agent and it exits cleanly.
    const exited = new Promise<number | null>((resolve) => r.agent.child.once('exit', resolve));
    r.agent.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 180_000);
});
