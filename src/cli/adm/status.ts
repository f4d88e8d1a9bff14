// `cincy adm upgrade status`: the progress of an update as `oc adm upgrade status` shows it — the control
// plane (operators updated, duration, estimate, its nodes), the worker pools with each node's phase and
// estimate, and the update's health. "The cluster is not updating." when nothing is under way.
import type { ClusterClient } from '../kubeconfig.js';
import { DETAILS, type Details } from './details.js';
import { assessControlPlane, renderControlPlane } from './status/controlPlane.js';
import { readStatusInput, type StatusInput } from './status/cluster.js';
import { renderHealth } from './status/health.js';
import { assessPools, renderPoolNodes, renderPoolTable } from './status/pools.js';

export function statusReport(input: StatusInput, details: Details): string {
  const { cv, operators, now } = input;
  if (!operators.length)
    throw new Error(
      'no cluster operator information available - you must be connected to an OpenShift version 4 server',
    );
  const progressing = cv.status.conditions?.find((c) => c.type === 'Progressing');
  if (!progressing) throw new Error('no current Progressing info, see `oc describe clusterversion` for more details.');
  const { pools, insights: poolInsights } = assessPools(input);
  const workers = pools.filter((p) => p.name !== 'master');
  const master = pools.find((p) => p.name === 'master');
  const workersOutdated = workers.some((p) => p.total > 0 && p.completion !== 100);
  if (progressing.status !== 'True' && !workersOutdated) return 'The cluster is not updating.\n';

  const started = Date.parse(cv.status.history?.[0]?.startedTime ?? progressing.lastTransitionTime);
  const updatingFor = Math.round((now - started) / 1000) * 1000;
  const detailed = (what: Details): boolean => details === 'all' || details === what;
  const controlPlane = assessControlPlane(cv, operators, now);
  let out = renderControlPlane(controlPlane.data, detailed('operators'), now);
  if (master) out += renderPoolNodes(master, detailed('nodes'));
  if (workers.some((p) => p.nodes.length)) {
    out += '\n= Worker Upgrade =\n';
    out += renderPoolTable(workers);
    for (const p of workers) out += renderPoolNodes(p, detailed('nodes'));
  }
  out += '\n';
  out += renderHealth([...poolInsights, ...controlPlane.insights], updatingFor, now, detailed('health'));
  return out;
}

export async function upgradeStatus(cluster: ClusterClient, details: string): Promise<string> {
  if (!(DETAILS as readonly string[]).includes(details))
    throw new Error(`--details: '${details}' is not one of ${DETAILS.join(', ')}`);
  return statusReport(await readStatusInput(cluster), details as Details);
}
