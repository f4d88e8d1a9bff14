// `cincy get maintenance`: coordinated maintenance with workload locks (lcm.mirantis.com) as an operator
// reads it — whether a cluster maintenance is under way and in which of the seed's five phases, what holds
// it (a failed lock, with its errorMessage), the cluster locks, and each node's request and locks.
import type { ClusterApi, Resource } from '../cluster/api.js';
import { unlessNotFound } from '../cluster/apiError.js';
import { KUBE_LABEL } from '../cluster/labels.js';
import { RESOURCES } from '../cluster/resources.js';
import { failedLocks, MAINTENANCE_REQUEST, type Locks, type WorkloadLock } from '../agent/update/maintenance.js';
import { clientErrorLine } from './kubeErrors.js';
import { connectCluster } from './kubeconfig.js';
import { table } from './table.js';

interface Item {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { scope?: string; nodeName?: string; configuration?: { name?: string } };
  status?: { configuration?: { name?: string }; machineCount?: number; updatedMachineCount?: number };
}

export interface MaintenanceView {
  clusterRequest?: Item;
  nodeRequests: Item[];
  locks: Locks;
  nodes: Item[];
  pools: Item[];
  /** The release the cluster is updating to, and the one the Machine Config Operator runs. */
  desired?: string;
  machineConfig?: string;
}

/** The phase of the seed's flow the cluster is in, from what it holds. */
export function maintenancePhase(v: MaintenanceView): string {
  if (!v.clusterRequest) return 'none (no ClusterMaintenanceRequest)';
  const pending = v.locks.cluster.filter((l) => l.status?.state !== 'inactive');
  if (pending.length)
    return `2 – applications updating (${pending.map((l) => `${l.metadata.name} ${l.status?.state ?? 'unset'}`).join(', ')})`;
  const role = (node: string): string =>
    v.nodes.find((n) => n.metadata.name === node)?.metadata.labels?.[`${KUBE_LABEL.nodeRolePrefix}master`] !== undefined
      ? 'master'
      : 'worker';
  const requested = v.nodeRequests.map((r) => r.spec?.nodeName ?? r.metadata.name);
  const updating = (p: Item): boolean =>
    p.status?.configuration?.name !== p.spec?.configuration?.name ||
    p.status?.updatedMachineCount !== p.status?.machineCount;
  const masters =
    requested.some((n) => role(n) === 'master') || v.pools.some((p) => p.metadata.name === 'master' && updating(p));
  if (masters) return `3 – control-plane nodes one by one${requested.length ? `: ${requested.join(', ')}` : ''}`;
  if (requested.length || v.pools.some(updating))
    return `4 – worker nodes one by one${requested.length ? `: ${requested.join(', ')}` : ''}`;
  if (v.desired && v.machineConfig !== v.desired)
    return `3 – control-plane nodes next, once the Machine Config Operator runs ${v.desired}`;
  return '5 – finalization: remaining applications, then the ClusterMaintenanceRequest is removed';
}

/** The report, as lines of text. */
export function maintenanceReport(v: MaintenanceView): string {
  const out: string[] = [];
  const cmr = v.clusterRequest;
  out.push(
    `Maintenance: ${cmr ? `ClusterMaintenanceRequest ${cmr.metadata.name} (scope ${cmr.spec?.scope ?? 'unset'})` : 'none'}`,
  );
  out.push(`Phase:       ${maintenancePhase(v)}`);
  const failed = failedLocks(v.locks);
  if (failed) out.push(`Stopped:     ${failed.message.replace(/\n/g, '\n             ')}`);
  out.push('');
  const lockRow = (l: WorkloadLock): string[] => [
    l.metadata.name,
    l.spec?.controllerName ?? '',
    l.status?.state ?? '',
    l.status?.release ?? '',
    l.status?.errorMessage ?? '',
  ];
  out.push(
    table(['CLUSTER LOCK', 'CONTROLLER', 'STATE', 'RELEASE', 'ERROR'], v.locks.cluster.map(lockRow), 3).trimEnd(),
  );
  out.push('');
  const controllers = [...new Set(v.locks.node.map((l) => l.spec?.controllerName ?? ''))].sort();
  const rows = v.nodes.map((n) => {
    const name = n.metadata.name;
    const request = v.nodeRequests.find((r) => (r.spec?.nodeName ?? r.metadata.name) === name);
    return [
      name,
      request ? (request.spec?.scope ?? 'requested') : '-',
      ...controllers.map((c) => {
        const l = v.locks.node.find((x) => x.spec?.nodeName === name && x.spec?.controllerName === c);
        return l ? (l.status?.state ?? 'unset') : '-';
      }),
    ];
  });
  out.push(table(['NODE', 'REQUEST', ...controllers.map((c) => c.toUpperCase())], rows, 3).trimEnd());
  return `${out.join('\n')}\n`;
}

/** Reads what the report needs; undefined when the cluster does not serve the lcm.mirantis.com API. */
export async function readMaintenance(api: ClusterApi): Promise<MaintenanceView | undefined> {
  const list = async (r: Resource, kind = ''): Promise<Item[] | undefined> =>
    (await unlessNotFound(api.list<Item>(r)))?.items.map((i) => ({ ...i, kind }));
  const cluster = await list(RESOURCES.clusterWorkloadLocks, 'ClusterWorkloadLock');
  if (!cluster) return undefined;
  const [node, requests, nodeRequests, pools] = await Promise.all([
    list(RESOURCES.nodeWorkloadLocks, 'NodeWorkloadLock'),
    list(RESOURCES.clusterMaintenanceRequests),
    list(RESOURCES.nodeMaintenanceRequests),
    list(RESOURCES.machineConfigPools),
  ]);
  const nodes = (await api.list<Item>(RESOURCES.nodes)).items;
  type Versioned = { status?: { desired?: { version?: string }; versions?: Array<{ name: string; version: string }> } };
  const read = (r: Resource, name: string): Promise<Versioned | undefined> =>
    unlessNotFound(api.get<Versioned>(r, { name }));
  const [cv, mco] = await Promise.all([
    read(RESOURCES.clusterVersions, 'version'),
    read(RESOURCES.clusterOperators, 'machine-config'),
  ]);
  return {
    clusterRequest: requests?.find((r) => r.metadata.name === MAINTENANCE_REQUEST) ?? requests?.[0],
    nodeRequests: nodeRequests ?? [],
    locks: { cluster: cluster as WorkloadLock[], node: (node ?? []) as WorkloadLock[] },
    nodes,
    pools: pools ?? [],
    desired: cv?.status?.desired?.version,
    machineConfig: mco?.status?.versions?.find((x) => x.name === 'operator')?.version,
  };
}

export async function maintenanceCommand(o: { kubeconfig?: string; output?: string }): Promise<number> {
  if (o.output !== undefined && o.output !== 'json')
    throw new Error(`-o: '${o.output}' is not an output format (json, or none for the report)`);
  const { api, origin } = connectCluster(o);
  let view: MaintenanceView | undefined;
  try {
    view = await readMaintenance(api);
  } catch (err) {
    throw new Error(clientErrorLine(err, origin) ?? (err as Error).message, { cause: err });
  }
  if (!view)
    throw new Error(
      'get maintenance: the cluster does not serve lcm.mirantis.com/v1alpha1 (no workload locks; mock-cluster --workload-locks simulates them)',
    );
  if (o.output === 'json')
    process.stdout.write(`${JSON.stringify({ phase: maintenancePhase(view), ...view }, null, 2)}\n`);
  else process.stdout.write(maintenanceReport(view));
  return 0;
}
