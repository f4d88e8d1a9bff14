// What every simulated cluster is made of, wherever its API is served (by the mock's own server, or by
// another API server with --kubeconfig): the flags checked, a new cluster seeded, the add-ons it has, and
// the controllers — the simulation's passes and the Lifecycle Agent — run on its clock.
import { createHash } from 'node:crypto';
import pino from 'pino';
import type { FollowedClock } from '../clock/followed.js';
import type { ClusterApi } from 'cincy/cluster/api';
import { DEFAULT_PAYLOAD_STORE, PayloadStore } from 'cincy/payload/store';
import { registryAccess } from 'cincy/cli/registryFlags';
import { isRegistryHost } from 'cincy/registry/reference';
import { installCrds } from '../apiserver/crds.js';
import { kindNamed } from '../apiserver/kinds.js';
import type { ClusterState } from '../apiserver/state.js';
import { CLUSTER_ARCHES, seedInventory } from '../controllers/inventory.js';
import { runImageBasedUpgrades } from '../controllers/lifecycleAgent/run.js';
import { PayloadPuller } from '../controllers/payloadPuller.js';
import { SCENARIO, scenarioFileData } from '../controllers/scenario.js';
import { SeedPuller } from '../controllers/seedPuller.js';
import { startSimulation } from '../controllers/simulation.js';
import { installWorkloadLocks, parseControllers } from '../controllers/workloadLocks.js';

/** The flags of `cincy mock-cluster`. */
export interface MockClusterOptions {
  host: string;
  port: string;
  state?: string;
  version: string;
  channel?: string;
  arch: string;
  upstream?: string;
  image?: string;
  installedVersion?: string;
  platform?: string;
  featureSet: string;
  rhelWorkers?: string;
  /** A single-node cluster with the Lifecycle Agent and OADP (image-based upgrades). */
  singleNode?: boolean;
  /** Simulated application controllers holding workload locks (lcm.mirantis.com), comma-separated. */
  workloadLocks?: string;
  token?: string;
  kubeconfigOut?: string;
  plainHttp?: boolean;
  certDir?: string;
  timeScale?: string;
  payloadStore?: string;
  scenario?: string;
  registryCredentials?: string;
  registryCa?: string;
  registryPlainHttp?: string[];
  /** Discard the state file (and its journal) and start a new cluster from the flags. */
  reset?: boolean;
  /** Simulate on the API server this kubeconfig names, instead of serving an API of its own. */
  kubeconfig?: string;
  /** The options given on the command line (not defaults): those that must agree with a saved state. */
  given?: ReadonlySet<string>;
}

/** The flags every simulated cluster takes, checked, naming the flag at fault. */
export interface SimulationFlags {
  scale: number;
  rhelWorkers: number;
  lockControllers: string[];
  puller: PayloadPuller;
  seedPuller: SeedPuller;
  warn: (message: string) => void;
}

export function simulationFlags(o: MockClusterOptions): SimulationFlags {
  const scale = Number(o.timeScale ?? '1');
  if (!(scale > 0) || !Number.isFinite(scale))
    throw new Error(`--time-scale: '${o.timeScale}' is not a positive number`);
  if (!CLUSTER_ARCHES.includes(o.arch))
    throw new Error(
      `--arch: '${o.arch}' is not an architecture the cluster can run (one of ${CLUSTER_ARCHES.join(', ')})`,
    );
  const rhelWorkers = Number(o.rhelWorkers ?? 0);
  if (!Number.isInteger(rhelWorkers) || rhelWorkers < 0 || rhelWorkers > 3)
    throw new Error(`--rhel-workers: '${o.rhelWorkers}' is not a whole number from 0 to 3`);
  if (!['Default', 'TechPreviewNoUpgrade'].includes(o.featureSet))
    throw new Error(`--feature-set: '${o.featureSet}' is neither Default nor TechPreviewNoUpgrade`);
  if (o.singleNode && rhelWorkers > 0)
    throw new Error('--rhel-workers: a single-node cluster (--single-node) has no workers');
  const warn = (m: string): void => void process.stderr.write(`mock-cluster: ${m}\n`);
  const lockControllers = o.workloadLocks !== undefined ? parseControllers(o.workloadLocks) : [];
  return { scale, rhelWorkers, lockControllers, ...pullers(o, warn), warn };
}

/**
 * The payload Job's puller and the single-node host's seed image puller, from the registry flags (each checked,
 * naming its flag): the cluster's registry settings.
 */
function pullers(o: MockClusterOptions, warn: (m: string) => void): { puller: PayloadPuller; seedPuller: SeedPuller } {
  const plainHttp = (o.registryPlainHttp ?? [])
    .flatMap((v) => v.split(','))
    .map((h) => h.trim())
    .filter(Boolean);
  for (const h of plainHttp)
    if (!isRegistryHost(h))
      throw new Error(`--registry-plain-http: '${h}' is not HOST[:PORT] (as pull specs name a registry, no scheme)`);
  const access = registryAccess(o);
  const arch = o.arch === 'multi' ? 'amd64' : o.arch;
  return {
    puller: new PayloadPuller({
      store: new PayloadStore(o.payloadStore ?? DEFAULT_PAYLOAD_STORE),
      ...access,
      plainHttp,
      arch,
      log: warn,
    }),
    seedPuller: new SeedPuller({ ...access, plainHttp, arch, log: warn }),
  };
}

/** A new cluster, as the flags describe it. */
export function seedCluster(
  state: ClusterState,
  o: MockClusterOptions,
  flags: SimulationFlags,
  acceptedCapabilities?: readonly string[],
): void {
  const image =
    o.image ??
    `quay.io/openshift-release-dev/ocp-release@sha256:${createHash('sha256').update(o.version).digest('hex')}`;
  seedInventory(state, {
    version: o.version,
    image,
    channel: o.channel,
    upstream: o.upstream,
    arch: o.arch,
    installedVersion: o.installedVersion,
    platform: o.platform,
    featureSet: o.featureSet === 'Default' ? '' : o.featureSet,
    rhelWorkers: flags.rhelWorkers,
    singleNode: o.singleNode,
    acceptedCapabilities,
  });
}

/** The CRDs of the cluster, its workload locks (--workload-locks) and its scenario (--scenario). */
export function addOns(state: ClusterState, o: MockClusterOptions, flags: SimulationFlags, now: number): void {
  installCrds(state, now); // a state saved before the mock listed its CRDs gets them now
  if (flags.lockControllers.length) installWorkloadLocks(state, flags.lockControllers, now);
  if (o.scenario) loadScenario(state, o.scenario);
}

/**
 * Runs the simulation's passes and the Lifecycle Agent of a single-node cluster (an operator on the cluster,
 * acting through `api`), until the returned stop(). `afterPass` follows each pass (another API server written to).
 */
export function runControllers(
  state: ClusterState,
  clock: FollowedClock,
  o: MockClusterOptions,
  flags: SimulationFlags,
  api: ClusterApi,
  afterPass?: () => Promise<void>,
): () => void {
  const { puller, seedPuller, warn } = flags;
  const stopSimulation = startSimulation(state, clock, {
    payloadStore: o.payloadStore,
    puller,
    seedPuller,
    warn,
    afterPass,
  });
  const lifecycleAgent = new AbortController();
  void runImageBasedUpgrades({
    api,
    clock,
    log: pino({ level: process.env.CINCY_MOCK_LOG_LEVEL ?? 'info' }, process.stderr),
    signal: lifecycleAgent.signal,
  }).catch((err: unknown) => warn(`the Lifecycle Agent stopped: ${(err as Error).message}`));
  return () => {
    lifecycleAgent.abort();
    stopSimulation();
  };
}

/** Loads a scenario file into the scenario ConfigMap (its keys replace the ones there). */
function loadScenario(state: ClusterState, file: string): void {
  const known = {
    operators: state.list(kindNamed('ClusterOperator')).map((c) => c.metadata.name),
    nodes: state.list(kindNamed('Node')).map((n) => n.metadata.name),
  };
  const data = scenarioFileData(file, known);
  const cm = kindNamed('ConfigMap');
  if (state.has(cm, SCENARIO.namespace, SCENARIO.name)) state.patch(cm, SCENARIO.namespace, SCENARIO.name, { data });
  else
    state.create(cm, SCENARIO.namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: SCENARIO.name, namespace: SCENARIO.namespace },
      data,
    });
}
