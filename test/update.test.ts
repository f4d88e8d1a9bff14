// Executing an update end to end, all as processes, as a user runs them: `cincy serve` with signed
// releases, `cincy payload create`, `cincy mock-cluster` on a simulated clock, `cincy agent` acting as
// the cluster-version-operator, and `cincy adm upgrade --to`. The clock runs hundreds of times faster
// than real time, so a 90-minute update takes seconds.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../src/agent/clusterVersion.js';
import { loadPayload } from '../src/payload/load.js';
import { PayloadStore } from '../src/payload/store.js';
import { taskGraph } from '../src/payload/taskGraph.js';
import { cincy, cincyAsync, serveCli, useCleanup } from './support/cli.js';
import { serveMock, type Mock } from './support/mock.js';
import { tempDir } from './support/server.js';
import { release, writeTree } from './support/trees.js';

const cleanup = useCleanup();
const BIN = join(import.meta.dirname, '..', 'bin', 'cincy.js');
const CV = { group: 'config.openshift.io', version: 'v1', plural: 'clusterversions', name: 'version' };
const image = (v: string): string => `quay.example/ocp/release@sha256:${Buffer.from(`release ${v}`).toString('hex').padEnd(64, '0').slice(0, 64)}`;
const SIGNED = ['4.15.8', '4.16.5', '4.16.6', '4.17.1', '4.16.8', '4.16.9', '4.16.10'];
const UNSIGNED = ['4.16.7'];
/** Payloads that go wrong: 4.16.8's says it is 4.16.4, 4.16.9 has none, 4.16.10's has a broken manifest. */
const MADE_AS: Record<string, string | undefined> = { '4.16.8': '4.16.4', '4.16.9': undefined };

/** Keys, signatures, payloads and a graph shared by every test: made once with the CLI. */
const shared = { dir: '', trust: '', payloads: '', tree: '' };

beforeAll(async () => {
  const dir = tempDir();
  shared.dir = dir.path;
  const keys = join(dir.path, 'keys');
  expect(cincy(['keys', 'generate', '--kid', 'update-test', '--out', keys]).code).toBe(0);
  shared.trust = join(dir.path, 'trust');
  mkdirSync(shared.trust);
  copyFileSync(join(keys, 'update-test.jwks.json'), join(shared.trust, 'update-test.jwks.json'));
  shared.payloads = join(dir.path, 'payloads');
  const made = await Promise.all(
    [...SIGNED, ...UNSIGNED]
      .filter((v) => !(v in MADE_AS) || MADE_AS[v])
      .map((v) => cincyAsync(['payload', 'create', '--version', MADE_AS[v] ?? v, '--image', image(v), '--store', shared.payloads])),
  );
  for (const r of made) expect(r.code, r.stderr).toBe(0);
  const broken = new PayloadStore(shared.payloads).pathOf(image('4.16.10'));
  writeFileSync(join(broken, '0000_50_console_06_deployment.yaml'), 'kind: Deployment\nmetadata: [not, a, map\n');
  const files: Record<string, string | undefined> = {
    'channels/stable-4.1.yaml': undefined,
    'blocked-edges/4.1.1-Risk.yaml': undefined,
    'releases/amd64/4.1.0.json': undefined,
    'releases/amd64/4.1.1.json': undefined,
    'releases/amd64/4.15.8.json': release('4.15.8', { payload: image('4.15.8') }),
    'releases/amd64/4.15.9.json': release('4.15.9', { previous: ['4.15.8'], payload: image('4.15.9') }),
    'channels/stable-4.16.yaml': 'name: stable-4.16\nversions: [4.15.8, 4.15.9, 4.16.5, 4.16.6, 4.16.7, 4.16.8, 4.16.9, 4.16.10, 4.17.1]\n',
    'blocked-edges/4.16.6-Everywhere.yaml': 'to: 4.16.6\nfrom: .*\nurl: https://issues.example/1\nname: Everywhere\nmessage: It breaks everywhere.\nmatchingRules:\n- type: Always\n',
  };
  for (const v of ['4.16.5', '4.16.6', '4.16.7', '4.16.8', '4.16.9', '4.16.10', '4.17.1']) {
    // 4.16.6 is also an update from 4.16.5, for a request that supersedes an update to 4.16.5.
    const previous = v === '4.16.6' ? ['4.15.9', '4.16.5'] : ['4.15.9'];
    files[`releases/amd64/${v}.json`] = release(v, { previous, payload: image(v), metadata: { url: `https://errata.example/${v}` } });
  }
  for (const v of SIGNED) {
    const hex = image(v).split('sha256:')[1]!;
    const out = join(dir.path, `sig-${v}`);
    expect(cincy(['sign', '--key', join(keys, 'update-test.private.jwk.json'), '--payload', image(v), '--out', out]).code).toBe(0);
    files[`signatures/sha256/${hex}/signature-1`] = readFileSync(out, 'utf8');
  }
  shared.tree = writeTree(join(dir.path, 'tree'), files);
  return () => dir.remove();
}, 120_000);

interface Agent {
  child: ChildProcess;
  lines(): Array<{ msg: string; [key: string]: unknown }>;
  kill(): void;
}

function startAgent(m: Mock, server: string): Agent {
  const child = spawn(process.execPath, [
    BIN, 'agent', '--kubeconfig', m.kubeconfig, '--interval', '1', '--payload-store', shared.payloads, '--trust-keys', shared.trust,
    '--signature-store', `${server}/signatures`, '--log-level', 'debug', '--follow-mock-clock',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const kill = (): void => void child.kill('SIGKILL');
  cleanup.add(kill);
  return {
    child,
    kill,
    lines: () => out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string }),
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
  const server = (await serveCli(['--db', ':memory:', '--graph-data', shared.tree, '--trust-keys', shared.trust], cleanup)).url;
  const dir = cleanup.dir();
  const scenario = opts.scenario ? [join(dir, 'scenario.yaml')] : [];
  if (opts.scenario) writeFileSync(scenario[0]!, JSON.stringify(opts.scenario));
  const m = await serveMock(
    [
      '--version', '4.15.9', '--image', image('4.15.9'), '--channel', 'stable-4.16', '--upstream', `${server}/api/upgrades_info/v1/graph`,
      '--time-scale', String(opts.scale), '--payload-store', shared.payloads, '--state', join(dir, 'state.json'),
      ...(opts.scenario ? ['--scenario', scenario[0]!] : []),
    ],
    dir,
    cleanup,
  );
  const custom = m.kc.makeApiClient(k8s.CustomObjectsApi);
  const cv = async (): Promise<ClusterVersion> => (await custom.getClusterCustomObject(CV)) as ClusterVersion;
  const until = async <T,>(what: string, f: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await f();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; status: ${JSON.stringify((await cv()).status.conditions)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const agent = startAgent(m, server);
  await until('the recommendations', async () => (await cv()).status.availableUpdates?.some((u) => u.version === '4.16.5'));
  return { m, server, agent, cv, until, upgrade: (...args) => cincyAsync(['adm', 'upgrade', '--kubeconfig', m.kubeconfig, ...args]) };
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
    const requested = await r.upgrade('--to', '4.16.5');
    expect(requested.stdout).toBe('Requested update to 4.16.5\n');

    const progressing = new Set<string>();
    let reportDuringUpdate = '';
    let poolsAtCompletion: Pool[] = [];
    const custom = r.m.kc.makeApiClient(k8s.CustomObjectsApi);
    const pools = async (): Promise<Pool[]> => ((await custom.listClusterCustomObject({ group: 'machineconfiguration.openshift.io', version: 'v1', plural: 'machineconfigpools' })) as { items: Pool[] }).items;
    const completed = await r.until('the control plane at 4.16.5', async () => {
      const cv = await r.cv();
      const p = condition(cv, 'Progressing');
      if (p?.status === 'True') {
        progressing.add(p.message);
        if (!reportDuringUpdate && /waiting on/.test(p.message)) reportDuringUpdate = (await r.upgrade()).stdout;
      }
      if (cv.status.history?.[0]?.version !== '4.16.5' || cv.status.history[0].state !== 'Completed') return undefined;
      poolsAtCompletion = await pools();
      return cv;
    }, 120_000);

    // Steps 1, 2, 6: resolved from the recommendations, verified, recorded.
    const [entry, previous] = completed.status.history!;
    expect(entry).toMatchObject({ state: 'Completed', version: '4.16.5', image: image('4.16.5'), verified: true });
    expect(entry!.acceptedRisks).toBeUndefined();
    expect(Date.parse(entry!.completionTime!)).toBeGreaterThan(Date.parse(entry!.startedTime));
    expect(previous).toMatchObject({ version: '4.15.9', state: 'Completed' });
    expect(completed.status.desired).toMatchObject({ version: '4.16.5', image: image('4.16.5'), url: 'https://errata.example/4.16.5' });
    expect(condition(completed, 'ReleaseAccepted')).toMatchObject({ status: 'True', reason: 'PayloadLoaded', message: `Payload loaded version="4.16.5" image="${image('4.16.5')}" architecture="amd64"` });
    expect(condition(completed, 'Progressing')).toMatchObject({ status: 'False', message: 'Cluster version is 4.16.5' });
    expect(condition(completed, 'Available')).toMatchObject({ status: 'True', message: 'Done applying 4.16.5' });
    expect(condition(completed, 'Failing')).toMatchObject({ status: 'False' });

    // Step 3: the Job that extracted the payload.
    const jobs = await r.m.kc.makeApiClient(k8s.BatchV1Api).listNamespacedJob({ namespace: 'openshift-cluster-version' });
    expect(jobs.items.map((j) => j.metadata!.name)).toEqual([expect.stringMatching(/^version-4\.16\.5-[a-z0-9]{1,5}$/)]);

    // Step 11: progress as the CVO words it, and as adm upgrade shows it.
    const total = loadPayload(new PayloadStore(shared.payloads).pathOf(image('4.16.5'))).manifests.reduce((n, m) => n + m.docs.length, 0);
    const counts = [...progressing].map((msg) => /^Working towards 4\.16\.5: (\d+) of (\d+) done \((\d+)% complete\)/.exec(msg)).filter((m) => m !== null);
    expect(counts.length).toBeGreaterThan(5);
    for (const m of counts) expect(Number(m[2])).toBe(total);
    expect([...progressing].some((msg) => /, waiting on [a-z-]+/.test(msg))).toBe(true);
    expect(reportDuringUpdate).toMatch(/^info: An upgrade is in progress\. Working towards 4\.16\.5: \d+ of \d+ done/);

    // Step 7: the apply log, in runlevel order; step 8: the CVO replaced itself and the new one resumed.
    const lines = r.agent.lines();
    const applied = lines.filter((l) => l.msg === 'applied') as unknown as Array<{ runlevel: number; file: string }>;
    expect(applied.length).toBe(total);
    for (let i = 1; i < applied.length; i++) expect(applied[i]!.runlevel).toBeGreaterThanOrEqual(applied[i - 1]!.runlevel);
    const handover = lines.findIndex((l) => l.msg.startsWith('the cluster-version-operator Deployment changed'));
    expect(handover).toBeGreaterThan(-1);
    expect(lines.slice(handover).some((l) => l.msg === 'resuming the update where it was')).toBe(true);
    expect(applied[0]!.file).toMatch(/^0000_00_cluster-version-operator_/);

    // Step 11: Completed while the slow worker was still updating.
    const worker = poolsAtCompletion.find((p) => p.metadata.name === 'worker')!;
    const master = poolsAtCompletion.find((p) => p.metadata.name === 'master')!;
    expect(master.status.updatedMachineCount).toBe(master.status.machineCount);
    expect(worker.status.updatedMachineCount).toBeLessThan(worker.status.machineCount);

    // §B: every node ends on the new configuration.
    const done = await r.until('every node updated', async () => {
      const ps = await pools();
      return ps.every((p) => p.status.updatedMachineCount === p.status.machineCount && p.status.configuration?.name === p.spec.configuration?.name) && ps;
    }, 60_000);
    expect(done.map((p) => p.status.configuration?.name)).toEqual([expect.stringMatching(/^rendered-master-/), expect.stringMatching(/^rendered-worker-/)]);
    const operators = (await custom.listClusterCustomObject({ group: 'config.openshift.io', version: 'v1', plural: 'clusteroperators' })) as { items: Array<{ metadata: { name: string }; status: { versions: Array<{ name: string; version: string }> } }> };
    for (const co of operators.items) expect(co.status.versions.find((v) => v.name === 'operator')?.version, co.metadata.name).toBe('4.16.5');
    const mcp = await cincyAsync(['get', 'mcp', '--kubeconfig', r.m.kubeconfig]);
    expect(mcp.stdout).toMatch(/^NAME\s+CONFIG\s+UPDATED\s+UPDATING\s+DEGRADED\s+MACHINECOUNT\s+READYMACHINECOUNT\s+UPDATEDMACHINECOUNT\s+DEGRADEDMACHINECOUNT\s+AGE\n/);
    expect(mcp.stdout).toMatch(/\nworker\s+rendered-worker-\S+\s+True\s+False\s+False\s+3\s+3\s+3\s+0\s/);

    // After the update the CVO keeps the release's objects: a deleted one comes back.
    const manifests = loadPayload(new PayloadStore(shared.payloads).pathOf(image('4.16.5'))).manifests;
    const cm = manifests.flatMap((m) => m.docs).find((d) => d.kind === 'ConfigMap' && d.metadata.namespace)!;
    const core = r.m.kc.makeApiClient(k8s.CoreV1Api);
    await core.deleteNamespacedConfigMap({ namespace: cm.metadata.namespace!, name: cm.metadata.name });
    await r.until(`${cm.metadata.name} back`, async () => core.readNamespacedConfigMap({ namespace: cm.metadata.namespace!, name: cm.metadata.name }).catch(() => undefined), 60_000);
    const reconciled = await r.until('the reconcile pass', async () => r.agent.lines().find((l) => l.msg === 'release reconciled' && (l as unknown as { created: number }).created > 0));
    expect(reconciled).toMatchObject({ version: '4.16.5', manifests: total, created: 1 });

    // SIGTERM ends every wait of the agent and it exits cleanly.
    const exited = new Promise<number | null>((resolve) => r.agent.child.once('exit', resolve));
    r.agent.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 180_000);

  it('resumes after the agent is killed mid-update, without applying the finished runlevels again', async () => {
    const r = await rig({ scale: 240 });
    expect((await r.upgrade('--to', '4.16.5')).code).toBe(0);
    const core = r.m.kc.makeApiClient(k8s.CoreV1Api);
    const stagesDone = async (): Promise<number> => Number((await core.readNamespacedConfigMap({ namespace: 'openshift-cluster-version', name: 'cincy-update-progress' }).catch(() => undefined))?.data?.stagesDone ?? 0);
    await r.until('three runlevels done', async () => (await stagesDone()) >= 3, 120_000);
    r.agent.kill();
    const atKill = await stagesDone();

    const second = startAgent(r.m, r.server);
    await r.until('the update completed', async () => ((h) => h?.version === '4.16.5' && h.state === 'Completed')((await r.cv()).status.history?.[0]), 150_000);
    const lines = second.lines();
    const resumed = lines.find((l) => l.msg === 'resuming the update where it was') as { stagesDone: number } | undefined;
    expect(resumed?.stagesDone).toBe(atKill);
    const stages = taskGraph(loadPayload(new PayloadStore(shared.payloads).pathOf(image('4.16.5'))).manifests);
    const finished = new Set(stages.slice(0, atKill).flatMap((s) => s.tasks.flatMap((t) => t.manifests.map((m) => m.file))));
    const again = lines.filter((l) => l.msg === 'applied' && finished.has(l.file as string));
    expect(again).toEqual([]);
    expect(lines.filter((l) => l.msg === 'applied').length).toBeGreaterThan(0);
  }, 300_000);

  it('refuses an unsigned release unless forced, and records the forced risk', async () => {
    const r = await rig({ scale: 600 });
    expect((await r.upgrade('--to', '4.16.7')).code).toBe(0);
    const refused = await r.until('the refusal', async () => {
      const c = condition(await r.cv(), 'ReleaseAccepted');
      return c?.status === 'False' && c;
    });
    expect(refused.reason).toBe('RetrievePayload');
    expect(refused.message).toMatch(new RegExp(`^Retrieving payload failed version="4\\.16\\.7" image="${image('4.16.7').replace(/[.]/g, '\\.')}" failure=The update cannot be verified: unable to verify sha256:[0-9a-f]{64} against keyrings: update-test`));
    expect((await r.cv()).status.history).toHaveLength(1);
    expect((await r.upgrade()).stdout).toContain('ReleaseAccepted=False\n\n  Reason: RetrievePayload');

    const forced = await r.upgrade('--to', '4.16.7', '--force');
    expect(forced.stderr).toContain('warning: --force overrides cluster verification');
    const entry = await r.until('the forced update', async () => {
      const h = (await r.cv()).status.history?.[0];
      return h?.version === '4.16.7' && h;
    });
    expect(entry).toMatchObject({ state: 'Partial', verified: false, completionTime: null });
    expect(entry.acceptedRisks).toMatch(/^Target release version="4\.16\.7" image="\S+" cannot be verified, but continuing anyway because the update was forced: The update cannot be verified/);
  }, 120_000);

  it('checks each precondition, and force takes the update through blocking failures', async () => {
    const r = await rig({ scale: 600 });
    const custom = r.m.kc.makeApiClient(k8s.CustomObjectsApi);
    const refusal = async (version: string, precondition: string): Promise<string> =>
      (await r.until(`the ${precondition} refusal`, async () => {
        const c = condition(await r.cv(), 'ReleaseAccepted');
        return c?.status === 'False' && c.message.includes(`version="${version}"`) && c.message.includes(`"${precondition}"`) && c;
      })).message;

    // Not a rollback.
    expect((await r.upgrade('--to-image', image('4.15.8'), '--allow-explicit-upgrade')).code).toBe(0);
    expect(await refusal('4.15.8', 'ClusterVersionRollback')).toBe(
      `Preconditions failed for payload loaded version="4.15.8" image="${image('4.15.8')}": Precondition "ClusterVersionRollback" failed because of "Downgrade": the update from 4.15.9 to 4.15.8 is a rollback, which is not supported`,
    );
    // Not a hop over a minor version.
    expect((await r.upgrade('--to', '4.17.1')).code).toBe(0);
    expect(await refusal('4.17.1', 'MinorVersionHop')).toContain('Precondition "MinorVersionHop" failed because of "MinorVersionHop": the update from 4.15.9 to 4.17.1 skips a minor version; update to 4.16 first');
    // Upgradeable=False blocks a minor update.
    const etcd = (await custom.getClusterCustomObject({ group: 'config.openshift.io', version: 'v1', plural: 'clusteroperators', name: 'etcd' })) as { status: { conditions: Array<{ type: string }> } };
    const conditions = etcd.status.conditions.map((c) => (c.type === 'Upgradeable' ? { ...c, status: 'False', reason: 'AdminAckRequired', message: 'Acknowledge the API removals first.' } : c));
    await custom.patchClusterCustomObjectStatus(
      { group: 'config.openshift.io', version: 'v1', plural: 'clusteroperators', name: 'etcd', body: { status: { conditions } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect((await r.upgrade('--to', '4.16.5')).code).toBe(0);
    expect(await refusal('4.16.5', 'ClusterVersionUpgradeable')).toBe(
      `Preconditions failed for payload loaded version="4.16.5" image="${image('4.16.5')}": Precondition "ClusterVersionUpgradeable" failed because of "AdminAckRequired": Cluster operator etcd should not be upgraded between minor versions: Acknowledge the API removals first.`,
    );
    expect(condition(await r.cv(), 'Upgradeable')).toMatchObject({ status: 'False', reason: 'AdminAckRequired' });
    // A version nobody recommends is invalid, not attempted.
    await custom.patchClusterCustomObject({ ...CV, body: { spec: { desiredUpdate: { version: '4.16.99', image: null, force: false } } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
    const invalid = await r.until('Invalid', async () => condition(await r.cv(), 'Invalid'));
    expect(invalid).toMatchObject({ status: 'True', reason: 'InvalidClusterVersion', message: 'The cluster version is invalid: spec.desiredUpdate.version: Invalid value: "4.16.99": when image is empty the update must be a previous version or an available update' });
    // Force: through the blocking failure.
    expect((await r.upgrade('--to', '4.16.6', '--allow-not-recommended', '--force')).code).toBe(0);
    const entry = await r.until('the forced update', async () => {
      const h = (await r.cv()).status.history?.[0];
      return h?.version === '4.16.6' && h;
    });
    expect(entry.verified).toBe(true);
    expect(entry.acceptedRisks).toContain('Forced through blocking failures: Precondition "ClusterVersionUpgradeable" failed because of "AdminAckRequired"');
    expect(condition(await r.cv(), 'Invalid')).toBeUndefined();
  }, 120_000);

  it('refuses a payload it cannot retrieve, cannot load, or that is another version, even forced', async () => {
    const r = await rig({ scale: 600 });
    const refused = async (version: string): Promise<{ reason: string; message: string }> =>
      r.until(`the refusal of ${version}`, async () => {
        const c = condition(await r.cv(), 'ReleaseAccepted');
        return c?.status === 'False' && c.message.includes(`version="${version}"`) && c;
      });
    expect((await r.upgrade('--to', '4.16.9', '--force')).code).toBe(0);
    expect(await refused('4.16.9')).toMatchObject({
      reason: 'RetrievePayload',
      message: expect.stringMatching(/^Retrieving payload failed version="4\.16\.9" image="\S+" failure=Unable to download and prepare the update: BackoffLimitExceeded: .*quay\.example\/ocp\/release@sha256:[0-9a-f]{64}/),
    });
    expect((await r.upgrade('--to', '4.16.10', '--force')).code).toBe(0);
    expect(await refused('4.16.10')).toMatchObject({ reason: 'LoadPayload', message: expect.stringContaining('failure=0000_50_console_06_deployment.yaml: ') });
    expect((await r.upgrade('--to', '4.16.8', '--force')).code).toBe(0);
    expect(await refused('4.16.8')).toMatchObject({
      reason: 'VerifyPayloadVersion',
      message: `Verifying payload failed version="4.16.8" image="${image('4.16.8')}" failure=release image version 4.16.4 does not match the expected upstream version 4.16.8`,
    });
    expect((await r.cv()).status.history).toHaveLength(1);
    const jobs = await r.m.kc.makeApiClient(k8s.BatchV1Api).listNamespacedJob({ namespace: 'openshift-cluster-version' });
    expect(jobs.items.map((j) => j.metadata!.name).sort()).toEqual([expect.stringMatching(/^version-4\.16\.10-/), expect.stringMatching(/^version-4\.16\.8-/), expect.stringMatching(/^version-4\.16\.9-/)]);
  }, 120_000);

  it('reports a degraded operator as Failing after 40 minutes of waiting on it, until a new request supersedes the update', async () => {
    const r = await rig({ scale: 600, scenario: { operators: { console: { behavior: 'degraded' } } } });
    expect((await r.upgrade('--to', '4.16.5')).code).toBe(0);
    // The wait is kept in the cluster: an agent restarted during it keeps counting from when it began.
    const core = r.m.kc.makeApiClient(k8s.CoreV1Api);
    const waitingSince = async (): Promise<string | undefined> => (await core.readNamespacedConfigMap({ namespace: 'openshift-cluster-version', name: 'cincy-update-progress' }).catch(() => undefined))?.data?.waitingSince;
    await r.until('the wait on console', async () => /waiting on .*console/.test(condition(await r.cv(), 'Progressing')?.message ?? ''), 120_000);
    const since = await waitingSince();
    r.agent.kill();
    startAgent(r.m, r.server);
    const failing = await r.until('Failing', async () => {
      const c = condition(await r.cv(), 'Failing');
      return c?.status === 'True' && c;
    }, 120_000);
    expect(failing).toMatchObject({ reason: 'ClusterOperatorDegraded', message: 'Cluster operator console is degraded' });
    const cv = await r.cv();
    expect(condition(cv, 'Progressing')).toMatchObject({ status: 'True', message: 'Unable to apply 4.16.5: wait has exceeded 40 minutes for these operators: console' });
    expect(cv.status.history?.[0]).toMatchObject({ version: '4.16.5', state: 'Partial' });
    // The 40 minutes are simulated ones, counted from when the wait began, across the restart.
    expect(await waitingSince()).toBe(since);
    const waited = Date.parse(failing.lastTransitionTime) - Number(since);
    expect(waited).toBeGreaterThanOrEqual(40 * 60_000 - 1000);
    expect(waited).toBeLessThan(45 * 60_000);
    const report = await r.upgrade();
    expect(report.stdout).toMatch(/^Failing=True:\n\n {2}Reason: ClusterOperatorDegraded\n {2}Message: Cluster operator console is degraded\n/);
    const co = await cincyAsync(['get', 'co', '--kubeconfig', r.m.kubeconfig]);
    expect(co.stdout).toMatch(/\nconsole\s+4\.15\.9\s+True\s+\S+\s+True\s/);

    // A new request supersedes the stuck update: a new entry, the old one ended but never Completed.
    await r.until('the updates from 4.16.5', async () => (await r.cv()).status.conditionalUpdates?.some((c) => c.release.version === '4.16.6'));
    const superseding = await r.upgrade('--to', '4.16.6', '--allow-not-recommended', '--allow-upgrade-with-warnings');
    expect(superseding.code, superseding.stderr).toBe(0);
    const history = await r.until('the superseding update', async () => ((h) => h?.[0]?.version === '4.16.6' && h)((await r.cv()).status.history));
    expect(history[0]).toMatchObject({ state: 'Partial', completionTime: null });
    expect(history[1]).toMatchObject({ version: '4.16.5', state: 'Partial', completionTime: expect.any(String) });
    expect(history[2]).toMatchObject({ version: '4.15.9', state: 'Completed' });
  }, 180_000);
});
