// `cincy mock-cluster --kubeconfig FILE`: the simulated cluster on another API server (a real kube-apiserver
// with OpenShift's CRDs, say) instead of an API of its own. A new cluster's inventory — the CRDs the server
// lacks, the ClusterVersion, ClusterOperators, nodes, pools, workloads — is made there; then the same
// controllers as in the mock's own process play the operators, the Machine Config Operator, the nodes and
// the Lifecycle Agent there, each change going through that server's API (mirror.ts). Started again, it
// finds the cluster it made and goes on with it; started before the server answers, it waits for it.
import { clusterApi, loadKubeConfig } from 'cincy/cli/kubeconfig';
import type { ClusterApi } from 'cincy/cluster/api';
import { apiMessage, apiStatus, isConflict, unlessNotFound } from 'cincy/cluster/apiError';
import { isUnreachable } from './unreachable.js';
import { RESOURCES } from 'cincy/cluster/resources';
import { kindNamed } from '../apiserver/kinds.js';
import { ClusterState } from '../apiserver/state.js';
import { addOns, runControllers, seedCluster, simulationFlags, type MockClusterOptions } from '../cli/clusterSetup.js';
import { declareClock, followDeclaredClock } from '../controllers/simulation.js';
import { RemoteMirror } from './mirror.js';

/** The flags of a mock that serves its own API, which mean nothing on another server. */
const OWN_SERVER_FLAGS: Record<string, string> = {
  state: '--state',
  port: '--port',
  host: '--host',
  token: '--token',
  kubeconfigOut: '--kubeconfig-out',
  plainHttp: '--plain-http',
  certDir: '--cert-dir',
  reset: '--reset',
};

/** How long the inventory of a new cluster may take to be made (CRDs to be served among it). */
const SEED_DEADLINE_MS = 120_000;

export async function simulateOnApiServer(o: MockClusterOptions): Promise<number> {
  const refused = Object.keys(OWN_SERVER_FLAGS).filter((k) => o.given?.has(k));
  if (refused.length)
    throw new Error(
      `--kubeconfig: the cluster's API is that server's, so ${refused.map((k) => OWN_SERVER_FLAGS[k]).join(', ')} ${refused.length === 1 ? 'has' : 'have'} no meaning; drop ${refused.length === 1 ? 'it' : 'them'}`,
    );
  const flags = simulationFlags(o);
  const api = clusterApi(loadKubeConfig({ kubeconfig: o.kubeconfig }), 'cincy-mock-cluster');
  const server = loadKubeConfig({ kubeconfig: o.kubeconfig }).getCurrentCluster()?.server ?? 'the API server';
  const state = new ClusterState();
  const mirror = new RemoteMirror(state, api, { warn: flags.warn });
  const fresh = !(await clusterFound(mirror, server, flags.warn));
  if (fresh) {
    seedCluster(state, o, flags, await acceptedCapabilities(api));
    addOns(state, o, flags, Date.now());
    await makeInventory(mirror, api, state);
  } else await mirror.discover();
  await mirror.start();
  if (!fresh && (flags.lockControllers.length || o.scenario)) addOns(state, o, flags, Date.now());
  const clock = followDeclaredClock(state, declareClock(state, flags.scale));
  state.now = () => Math.min(clock.now(), Date.now());
  await mirror.flush();
  const stop = runControllers(state, clock, o, flags, api, () => mirror.flush());
  process.stdout.write(
    `mock cluster simulating on ${server}${fresh ? ' (a new cluster made there)' : ' (the cluster found there)'}\n`,
  );
  const end = (): void => {
    stop();
    mirror.stop();
    void mirror.flush().finally(() => process.exit(0));
  };
  process.once('SIGINT', end);
  process.once('SIGTERM', end);
  return new Promise<number>(() => {});
}

/** How often a server that does not answer yet is asked again, and how often the wait is said. */
const RETRY_MS = 250;
const SAY_EVERY_MS = 30_000;

/**
 * Whether the server holds a cluster made by an earlier run (its ClusterVersion). A server that does not
 * answer yet (nothing listening, a connection cut, its name not served yet, no answer in time) or answers that
 * it cannot serve yet (503 while it starts, 429) is waited for, as the cluster's own components wait for
 * theirs; anything waiting will not change (a certificate or credentials refused) ends the start.
 */
async function clusterFound(mirror: RemoteMirror, server: string, warn: (m: string) => void): Promise<boolean> {
  let saidAt = -Infinity;
  for (;;) {
    try {
      return await mirror.holds(kindNamed('ClusterVersion'), undefined, 'version');
    } catch (err) {
      const status = apiStatus(err);
      const passing = status === undefined ? isUnreachable(err) : status === 429 || status >= 500;
      if (!passing) throw new Error(`--kubeconfig: ${server} cannot be used: ${apiMessage(err)}`);
      if (Date.now() - saidAt >= SAY_EVERY_MS) {
        warn(`waiting for the API server at ${server}: ${apiMessage(err)}`);
        saidAt = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}

/**
 * The capabilities the server's ClusterVersion CRD accepts (the enum of status.capabilities), or undefined when
 * it names none: a CRD older than the release simulated (4.15's on a 4.16 cluster) refuses the newer ones, and
 * a ClusterVersion the server refuses would leave the cluster without one.
 */
async function acceptedCapabilities(api: ClusterApi): Promise<string[] | undefined> {
  type Versions = Array<{ storage?: boolean; schema?: { openAPIV3Schema?: unknown } }>;
  const crd = await unlessNotFound(
    api.get<{ spec?: { versions?: Versions } }>(
      { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false },
      { name: 'clusterversions.config.openshift.io' },
    ),
  );
  const schema = crd?.spec?.versions?.find((v) => v.storage)?.schema?.openAPIV3Schema;
  const path = ['status', 'capabilities', 'enabledCapabilities'];
  let at = schema as { properties?: Record<string, unknown>; items?: { enum?: unknown[] } } | undefined;
  for (const key of path) at = at?.properties?.[key] as typeof at;
  return at?.items?.enum?.filter((c): c is string => typeof c === 'string');
}

/**
 * Makes the seeded inventory on the server: CRDs first, then — once the server serves their kinds — the
 * rest, each namespace with the `default` ServiceAccount its pods are admitted with (kube-controller-manager's
 * work on a real cluster, which a bare API server lacks).
 */
async function makeInventory(mirror: RemoteMirror, api: ClusterApi, state: ClusterState): Promise<void> {
  const deadline = Date.now() + SEED_DEADLINE_MS;
  const namespaces = state.list(kindNamed('Namespace')).map((n) => n.metadata.name);
  for (;;) {
    const kinds = await mirror.discover();
    mirror.markAll();
    await mirror.flush();
    for (const namespace of namespaces)
      await api
        .create(RESOURCES.serviceAccounts, { metadata: { name: 'default', namespace } })
        .catch((err: unknown) => (isConflict(err) ? undefined : err));
    const unserved = state
      .list(kindNamed('CustomResourceDefinition'))
      .filter((crd) => !kinds.some((k) => `${k.plural}.${k.group}` === crd.metadata.name));
    if (mirror.pending === 0 && unserved.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(
        `--kubeconfig: the cluster could not be made on the server within ${SEED_DEADLINE_MS / 1000} s: ${mirror.pending} objects refused${unserved.length ? `; kinds not served: ${unserved.map((c) => c.metadata.name).join(', ')}` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
