// Coordinated maintenance with workload locks (seed 004, Mirantis LCM's node maintenance API,
// lcm.mirantis.com/v1alpha1). On a cluster whose application controllers hold ClusterWorkloadLocks and
// NodeWorkloadLocks, the update executor plays the lifecycle manager's cluster part: (1) it creates the
// ClusterMaintenanceRequest, which tells the controllers; (2) it applies no runlevel before every cluster
// lock is inactive (the controllers have updated their applications, in their own order); (3, 4) the
// Machine Config Operator takes the nodes, masters first, each once its node locks are inactive, and the
// executor leaves the machine-config runlevel only when every pool is done; (5) the remaining runlevels,
// then it removes the ClusterMaintenanceRequest. A lock in `failed` stops the flow where it is (no further
// runlevel or node, the request kept) and is reported (Failing, reason WorkloadLockFailed, with the lock's
// errorMessage) for as long as it lasts; the flow goes on once it recovers.
import type { KubeObject, Resource } from '../../cluster/api.js';
import { isConflict, unlessNotFound } from '../../cluster/apiError.js';
import { RESOURCES } from '../../cluster/resources.js';
import type { OperatorContext } from './context.js';

/** The ClusterMaintenanceRequest of the update executor. */
export const MAINTENANCE_REQUEST = 'cincy-update';
/** The scope of the maintenance: the update reboots the nodes into their new OS. */
const SCOPE = 'os';

export interface WorkloadLock extends KubeObject {
  spec?: { controllerName?: string; nodeName?: string };
  status?: { state?: string; errorMessage?: string; release?: string };
}

export interface Locks {
  cluster: WorkloadLock[];
  node: WorkloadLock[];
}

/** The cluster's workload locks; undefined when it does not serve the API or holds no lock (no coordination). */
export async function readLocks(ctx: OperatorContext): Promise<Locks | undefined> {
  const list = async (r: Resource, kind: string): Promise<WorkloadLock[] | undefined> => {
    const got = await unlessNotFound(ctx.api.list<WorkloadLock>(r));
    return got?.items.map((i) => ({ ...i, kind }));
  };
  const cluster = await list(RESOURCES.clusterWorkloadLocks, 'ClusterWorkloadLock');
  if (!cluster) return undefined;
  const node = (await list(RESOURCES.nodeWorkloadLocks, 'NodeWorkloadLock')) ?? [];
  return cluster.length + node.length > 0 ? { cluster, node } : undefined;
}

/** Phase 1: the ClusterMaintenanceRequest (kept if it exists: a restarted executor goes on with it). */
export async function requestMaintenance(ctx: OperatorContext, version: string): Promise<void> {
  const body = {
    apiVersion: 'lcm.mirantis.com/v1alpha1',
    kind: 'ClusterMaintenanceRequest',
    metadata: { name: MAINTENANCE_REQUEST, annotations: { 'cincy.io/update-to': version } },
    spec: { scope: SCOPE },
  };
  try {
    await ctx.api.create(RESOURCES.clusterMaintenanceRequests, body);
    ctx.log.info({ version }, 'cluster maintenance requested (ClusterMaintenanceRequest cincy-update)');
  } catch (err) {
    if (!isConflict(err)) throw err;
  }
}

/** Phase 5: the maintenance is over (a request already gone is fine). */
export async function endMaintenance(ctx: OperatorContext): Promise<void> {
  const gone = await unlessNotFound(
    ctx.api.delete(RESOURCES.clusterMaintenanceRequests, { name: MAINTENANCE_REQUEST }).then(() => true),
  );
  if (gone) ctx.log.info('cluster maintenance over: ClusterMaintenanceRequest cincy-update removed');
}

const describe = (l: WorkloadLock): string =>
  `${l.kind} ${l.metadata.name} (controller ${l.spec?.controllerName ?? '?'}${l.spec?.nodeName ? `, node ${l.spec.nodeName}` : ''})`;

/** The failing condition for failed locks, or undefined when none has failed. */
export function failedLocks(locks: Locks): { reason: string; message: string } | undefined {
  const failed = [...locks.cluster, ...locks.node].filter((l) => l.status?.state === 'failed');
  if (failed.length === 0) return undefined;
  const lines = failed.map((l) => `${describe(l)} failed: ${l.status?.errorMessage || 'no error message'}`);
  return {
    reason: 'WorkloadLockFailed',
    message:
      lines.length === 1 ? lines[0]! : `Multiple workload locks failed:\n${lines.map((x) => `* ${x}`).join('\n')}`,
  };
}

const logged = new WeakMap<OperatorContext, string>();

/** Logs a failed lock once while it lasts (the executor looks every few seconds). */
export function logFailed(ctx: OperatorContext, failed: { reason: string; message: string } | undefined): void {
  if (failed && logged.get(ctx) !== failed.message) ctx.log.error(failed, 'update held by a failed workload lock');
  if (failed) logged.set(ctx, failed.message);
  else logged.delete(ctx);
}

/** Phase 2: what the application updates still hold (cluster locks not inactive), or undefined when none. */
export function applicationsPending(locks: Locks): string | undefined {
  const pending = locks.cluster.filter((l) => l.status?.state !== 'inactive');
  if (pending.length === 0) return undefined;
  return `waiting on the applications' cluster workload locks: ${pending.map((l) => `${l.metadata.name} is ${l.status?.state ?? 'unset'}`).join(', ')}`;
}

interface Pool extends KubeObject {
  spec?: { configuration?: { name?: string } };
  status?: {
    observedGeneration?: number;
    configuration?: { name?: string };
    machineCount?: number;
    updatedMachineCount?: number;
  };
}

/** Phases 3 and 4: the pools whose nodes are not all at their target yet, by name. */
export async function poolsUpdating(ctx: OperatorContext): Promise<string[]> {
  const pools = (await ctx.api.list<Pool>(RESOURCES.machineConfigPools)).items;
  return pools
    .filter(
      (p) =>
        p.status?.configuration?.name !== p.spec?.configuration?.name ||
        p.status?.updatedMachineCount !== p.status?.machineCount ||
        (p.metadata.generation !== undefined && p.status?.observedGeneration !== p.metadata.generation),
    )
    .map((p) => p.metadata.name);
}
