// The lifecycle agent as part of `cincy agent`: it runs only on a cluster that serves the ImageBasedUpgrade
// API (lca.openshift.io/v1, a single-node cluster with the Lifecycle Agent's CRD), and follows the mock
// cluster's clock when the agent does.
import type * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../../clock.js';
import { followMockClock } from '../mockClock.js';
import { IbuCluster } from './cluster.js';
import { runLifecycleLoop } from './loop.js';
import { ImageBasedUpgradeReconciler } from './reconciler.js';

export async function runImageBasedUpgrades(o: {
  kc: k8s.KubeConfig;
  log: Logger;
  signal: AbortSignal;
  followMockClock?: boolean;
}): Promise<void> {
  const cluster = new IbuCluster(o.kc);
  let served: boolean;
  try {
    served = await cluster.served();
  } catch (err) {
    o.log.warn(
      { err: (err as Error).message },
      'cannot tell whether the cluster serves ImageBasedUpgrades; not managing them',
    );
    return;
  }
  if (!served) return;
  let clock: Clock = systemClock;
  let beforePass: (() => Promise<void>) | undefined;
  if (o.followMockClock) {
    const followed = followMockClock(o.kc, o.log);
    clock = followed.clock;
    beforePass = followed.refresh;
  }
  const log = o.log.child({ component: 'lifecycle-agent' });
  log.info('the cluster serves lca.openshift.io/v1 ImageBasedUpgrade: managing image-based upgrades');
  await runLifecycleLoop(new ImageBasedUpgradeReconciler({ cluster, clock, log }), {
    clock,
    log,
    signal: o.signal,
    beforePass,
  });
}
