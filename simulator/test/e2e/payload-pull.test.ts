// The mock cluster's payload Job pulling the release image from a real registry (Debian's docker-registry):
// the Job controller with the host-side puller on explicit times (pending, done, failed and why; a single
// image and an index), and the agent in-process refusing an update whose image the registry does not hold.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { kubeTime } from 'cincy/clock';
import { kindNamed, type StoredObject } from '@cincy/simulator/apiserver/kinds';
import { PayloadPuller } from '@cincy/simulator/controllers/payloadPuller';
import { reconcile } from '@cincy/simulator/controllers/simulation';
import { ClusterState } from '@cincy/simulator/apiserver/state';
import { generatePayload } from '@cincy/simulator/payloads/generate';
import { pushReleaseImage } from '@cincy/simulator/payloads/releaseImage';
import { PayloadStore } from 'cincy/payload/store';
import { RegistryClient } from 'cincy/registry/client';
import { LABEL } from 'cincy/graph/model';
import { parseRepository, pullSpec } from 'cincy/registry/reference';
import { TrustStore } from 'cincy/signatures/verify';
import type { ClusterVersion } from 'cincy/agent/clusterVersion';
import { requestUpdate } from 'cincy/cli/adm/request';
import { cincyAsync, useCleanup } from '../../../test/support/cli.js';
import { startOperator } from '../../../test/support/inProcessAgent.js';
import { InProcessCluster } from '@cincy/simulator/testing/inProcessCluster';
import { registryAvailable, startRegistry, type TestRegistry } from '../../../test/support/registry.js';
import { tempDir } from '../../../test/support/server.js';

const cleanup = useCleanup();
const available = registryAvailable();
const T0 = Date.parse('2026-06-01T00:00:00Z');
const JOB = kindNamed('Job');
const NS = 'openshift-cluster-version';
const MISSING = `sha256:${'0'.repeat(64)}`;

let registry: TestRegistry;
/** The pushed releases: a single-architecture one and a multi one, with the files each holds. */
const pushed = { single: '', multi: '', files: new Map<string, string>(), multiFiles: new Map<string, string>() };

beforeAll(async () => {
  if (!available) return;
  const dir = tempDir();
  const stopped: Array<() => unknown> = [];
  registry = await startRegistry({ dir: dir.path }, { add: (f) => void stopped.push(f) });
  const ref = parseRepository(registry.reference('ocp/release'), 'registry');
  const client = new RegistryClient(ref);
  const repository = `${ref.registry}/${ref.repository}`;
  pushed.files = generatePayload({ version: '4.16.1', repository, previous: ['4.16.0'] });
  pushed.multiFiles = generatePayload({ version: '4.16.1', repository, arch: 'multi' });
  const single = await pushReleaseImage(client, {
    version: '4.16.1',
    files: pushed.files,
    arch: 'amd64',
    tag: '4.16.1-x86_64',
  });
  const multi = await pushReleaseImage(client, {
    version: '4.16.1',
    files: pushed.multiFiles,
    arch: 'multi',
    tag: '4.16.1-multi',
  });
  await client.close();
  pushed.single = pullSpec(ref, single.digest);
  pushed.multi = pullSpec(ref, multi.digest);
  return async () => {
    for (const f of stopped) await f();
    dir.remove();
  };
}, 60_000);

/** A cluster state with the CVO's payload Job for `image`, and a puller of the test registry into a fresh store. */
function rig(image: string, o: { arch?: string; plainHttp?: string[]; retries?: number } = {}) {
  const state = new ClusterState();
  state.create(JOB, NS, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'version-4.16.1-abcde' },
    spec: { template: { spec: { containers: [{ name: 'payload', image }] } } },
  });
  const payloadStore = cleanup.dir();
  const store = new PayloadStore(payloadStore);
  const puller = new PayloadPuller({
    store,
    plainHttp: o.plainHttp ?? [registry.host],
    arch: o.arch ?? 'amd64',
    retries: o.retries,
    backoffMs: 10,
  });
  /** One pass at `t`: the host side starts what the Jobs need, then the controllers run. */
  const pass = (t: number): StoredObject => {
    puller.start(state);
    reconcile(state, t, { payloadStore, pulls: puller });
    return state.get(JOB, NS, 'version-4.16.1-abcde');
  };
  return { state, store, puller, pass };
}

const status = (job: StoredObject) =>
  job.status as { active?: number; succeeded?: number; failed?: number; conditions?: Array<Record<string, string>> };

describe.skipIf(!available)('the payload Job pulls the release image from the registry', () => {
  it('waits for the pull, stores the payload under the pull spec and completes; a stored image is not pulled again', async () => {
    const { store, puller, pass } = rig(pushed.single);
    const before = (await registry.requests()).length;
    expect(status(pass(T0))).toMatchObject({ active: 1 });
    expect(puller.pending).toBe(1);
    // The Job's time is up but the pull is not done: it stays active.
    expect(status(pass(T0 + 20_000))).toMatchObject({ active: 1 });
    expect(status(pass(T0 + 20_000)).conditions).toBeUndefined();
    await puller.idle();
    const done = status(pass(T0 + 21_000));
    expect(done).toMatchObject({ active: 0, succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] });
    expect(store.has(pushed.single)).toBe(true);
    const dir = store.pathOf(pushed.single);
    expect(readdirSync(dir).sort()).toEqual([...pushed.files.keys()].sort());
    for (const name of ['release-metadata', 'image-references', '0000_00_cluster-version-operator_03_deployment.yaml'])
      expect(readFileSync(`${dir}/${name}`, 'utf8')).toBe(pushed.files.get(name));
    // The manifest by digest, then the one layer, from the registry the pull spec names.
    const served = (await registry.requests()).slice(before);
    const digest = pushed.single.split('@')[1]!;
    expect(served).toContainEqual(
      expect.objectContaining({ method: 'GET', path: `/v2/ocp/release/manifests/${digest}`, status: 200 }),
    );
    expect(served.filter((r) => /^\/v2\/ocp\/release\/blobs\/sha256:/.test(r.path) && r.status === 200)).toHaveLength(
      1,
    );
    expect(served.every((r) => r.userAgent === 'cincy')).toBe(true);

    // Another Job for the image now stored: nothing is pulled.
    const again = rig(pushed.single);
    again.store.write(pushed.single, pushed.files);
    again.pass(T0);
    expect(again.puller.pending).toBe(0);
    expect(status(again.pass(T0 + 20_000))).toMatchObject({ succeeded: 1 });
  });

  it("takes the cluster architecture's member of an index, or the first when none matches", async () => {
    const client = new RegistryClient(parseRepository(registry.reference('ocp/release'), 'registry'));
    const index = (await client.manifest('4.16.1-multi')).manifest;
    await client.close();
    if (index.kind !== 'index') throw new Error('4.16.1-multi is not an index');
    expect(index.manifests.map((d) => d.platform?.architecture)).toEqual(['amd64', 'arm64', 'ppc64le', 's390x']);
    for (const [arch, member] of [
      ['arm64', 1],
      ['riscv64', 0],
    ] as const) {
      const { store, puller, pass } = rig(pushed.multi, { arch });
      const before = (await registry.requests()).length;
      pass(T0);
      await puller.idle();
      expect(status(pass(T0 + 20_000))).toMatchObject({ succeeded: 1 });
      const metadata = JSON.parse(readFileSync(`${store.pathOf(pushed.multi)}/release-metadata`, 'utf8')) as {
        metadata: Record<string, string>;
      };
      expect(metadata.metadata[LABEL.architecture]).toBe('multi');
      const manifests = (await registry.requests())
        .slice(before)
        .filter((r) => r.path.startsWith('/v2/ocp/release/manifests/'))
        .map((r) => r.path.split('/').pop());
      expect(manifests).toEqual([pushed.multi.split('@')[1], index.manifests[member]!.digest]);
    }
  });

  it('fails the Job with BackoffLimitExceeded, naming the image and why, when the pull fails', async () => {
    const missing = `${registry.host}/ocp/release@${MISSING}`;
    const cases: Array<[string, { plainHttp?: string[]; retries?: number }, RegExp]> = [
      [missing, {}, /: 404 \(MANIFEST_UNKNOWN\)$/],
      // Registry down: a port nobody listens on, after the retries.
      ['127.0.0.1:9/ocp/release@' + MISSING, { plainHttp: ['127.0.0.1:9'], retries: 1 }, /ECONNREFUSED/],
    ];
    for (const [image, o, why] of cases) {
      const { store, puller, pass } = rig(image, o);
      pass(T0);
      await puller.idle();
      const job = status(pass(T0 + 20_000));
      expect(job).toMatchObject({ active: 0, failed: 1 });
      const failed = job.conditions![0]!;
      expect(failed).toMatchObject({ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' });
      expect(failed.message).toMatch(
        `Job has reached the specified backoff limit: the release image ${image} is not in the payload store ${store.dir}, and pulling it failed: GET http://${image.split('/')[0]}/v2/ocp/release/manifests/${MISSING}: `,
      );
      expect(failed.message).toMatch(why);
      expect(failed.lastTransitionTime).toBe(kubeTime(T0 + 20_000));
    }
  });

  it('makes the agent refuse the update with RetrievePayload and the reason, as a missing payload does', async () => {
    const payloads = cleanup.dir();
    const cluster = await InProcessCluster.start({
      version: '4.16.1',
      image: pushed.single,
      payloadStore: payloads,
      pullFrom: [registry.host],
    });
    cleanup.add(() => cluster.close());
    const operator = startOperator(cluster, { trust: TrustStore.empty(), payloads, signatureStores: [] });
    cleanup.add(() => operator.stop());
    const target = `${registry.host}/ocp/release@${MISSING}`;
    await requestUpdate(cluster.client(), { toImage: target, allowExplicitUpgrade: true, force: true });
    const refused = await cluster.runUntil('the refusal', () => {
      const c = (cluster.cv() as ClusterVersion).status.conditions?.find((x) => x.type === 'ReleaseAccepted');
      return c?.status === 'False' && c;
    });
    expect(refused.reason).toBe('RetrievePayload');
    expect(refused.message).toMatch(
      `failure=Unable to download and prepare the update: BackoffLimitExceeded: Job has reached the specified backoff limit: the release image ${target} is not in the payload store`,
    );
    expect(refused.message).toMatch(/and pulling it failed: GET http:\/\/\S+: 404 \(MANIFEST_UNKNOWN\)$/);
  });
});

describe('cincy mock-cluster', () => {
  it('refuses registry flags it cannot use, naming them', async () => {
    const dir = cleanup.dir();
    const cases: Array<[string[], string]> = [
      [
        ['--registry-plain-http', 'quay.example:5000', '--registry-plain-http', 'http://127.0.0.1:5000'],
        "--registry-plain-http: 'http://127.0.0.1:5000' is not HOST[:PORT]",
      ],
      [['--registry-ca', join(dir, 'nope.pem')], `--registry-ca: ${join(dir, 'nope.pem')}: ENOENT`],
      [['--registry-credentials', join(dir, 'nope.json')], `--registry-credentials: ${join(dir, 'nope.json')}: `],
    ];
    const runs = await Promise.all(
      cases.map(([args]) =>
        cincyAsync(['mock-cluster', '--plain-http', '--port', '0', '--state', join(dir, 's.json'), ...args]),
      ),
    );
    for (const [i, [args, message]] of cases.entries()) {
      expect(runs[i]!.code, args.join(' ')).toBe(1);
      expect(runs[i]!.stderr, args.join(' ')).toContain(message);
    }
  });
});
