// The seed image as Prep gets it: the agent asks the host to pull spec.seedImageRef.image (with the pull secret
// spec.seedImageRef.pullSecretRef names, a Secret of openshift-lifecycle-agent, else the cluster's) and reads
// what the host found. As the real agent requeues when it cannot inspect the seed image (the registry
// unreachable, the image missing, the credentials refused, the pull secret missing), Prep stays in progress
// and asks again every WAIT.short, the reason in the log; the checks of what was pulled are prep.ts's.
import { kubeTime } from 'cincy/clock';
import type { SeedPullResult } from '../singleNodeHost.js';
import { WAIT, type StageContext } from './context.js';

/** How often Prep looks whether the host's pull has ended. */
const PULL_POLL = 5_000;

/** The host's result for the seed image of the spec, or how long to wait (simulated ms) for one that can be used. */
export async function seedImage(c: StageContext): Promise<SeedPullResult | number> {
  const ref = c.ibu.spec!.seedImageRef!;
  const pullSecret = ref.pullSecretRef?.name;
  const asked = c.host.seedPull;
  const ask = async (): Promise<number> => {
    if (pullSecret) {
      const problem = await c.cluster.pullSecretProblem(pullSecret);
      if (problem) {
        cannotInspect(c, `failed to retrieve pull-secret from secret ${pullSecret}, err: ${problem}`);
        return WAIT.short;
      }
    }
    c.host.seedPull = { image: ref.image!, ...(pullSecret && { pullSecret }), requestedAt: kubeTime(c.now) };
    await c.saveHost();
    return PULL_POLL;
  };
  if (!asked || asked.image !== ref.image || asked.pullSecret !== pullSecret) return ask();
  const result = asked.result;
  if (!result) return PULL_POLL;
  if (result.failed?.stage !== 'inspect') return result;
  const left = Date.parse(result.at) + WAIT.short - c.now;
  if (left <= 0) return ask();
  cannotInspect(c, `failed to inspect image: ${result.failed.reason}`);
  return left;
}

function cannotInspect(c: StageContext, why: string): void {
  c.log.error({ image: c.ibu.spec?.seedImageRef?.image }, `failed to get labels for seed image: ${why}`);
}
