// The Lifecycle Agent of a simulated single-node cluster: it runs only on a cluster that serves the
// ImageBasedUpgrade API (lca.openshift.io/v1, the Lifecycle Agent's CRD installed), on the cluster's clock.
import type { Logger } from 'pino';
import type { Clock } from 'cincy/clock';
import type { ClusterApi } from 'cincy/cluster/api';
import { IbuCluster } from './cluster.js';
import { runLifecycleLoop } from './loop.js';
import { ImageBasedUpgradeReconciler } from './reconciler.js';

export async function runImageBasedUpgrades(o: {
  api: ClusterApi;
  clock: Clock;
  log: Logger;
  signal: AbortSignal;
}): Promise<void> {
  const cluster = new IbuCluster(o.api);
  if (!(await cluster.served())) return;
  const log = o.log.child({ component: 'lifecycle-agent' });
  log.info('the cluster serves lca.openshift.io/v1 ImageBasedUpgrade: the Lifecycle Agent runs');
  await runLifecycleLoop(new ImageBasedUpgradeReconciler({ cluster, clock: o.clock, log }), {
    clock: o.clock,
    log,
    signal: o.signal,
  });
}
