// After an update the cluster-version-operator keeps the cluster's objects as the release delivers them
// (its reconciling mode, pkg/cvo/sync_worker.go): every manifest applied again, runlevel by runlevel,
// without waiting on operators, so an object deleted or changed by hand comes back.
import { documentCount, PayloadError } from '../../payload/load.js';
import { runStage, taskGraph } from '../../payload/taskGraph.js';
import type { ClusterRelease } from '../clusterVersion.js';
import { applyManifest } from './apply.js';
import type { ApiObject, OperatorContext } from './context.js';

/**
 * One pass over the running release; 'interrupted' when a new desired update (or shutdown) cut it short. A
 * release whose payload the store does not hold (the one the cluster was installed with, say) is left alone.
 */
export async function reconcileRelease(
  ctx: OperatorContext,
  desired: ClusterRelease,
  superseded: () => Promise<boolean>,
): Promise<'done' | 'interrupted'> {
  if (!ctx.payloads.has(desired.image)) return 'done';
  let manifests;
  try {
    manifests = ctx.payloads.load(desired.image).manifests;
  } catch (err) {
    if (!(err instanceof PayloadError)) throw err;
    ctx.log.warn(
      { err: err.message, version: desired.version },
      "the running release's payload does not load; not reconciling it",
    );
    return 'done';
  }
  const total = documentCount(manifests);
  let created = 0;
  try {
    for (const stage of taskGraph(manifests)) {
      // A new desired update goes first; the next pass comes soon enough.
      if (ctx.stopped || (await superseded())) return 'interrupted';
      await runStage(stage, ctx.workers, async (task) => {
        for (const m of task.manifests)
          for (const doc of m.docs as ApiObject[]) if ((await applyManifest(ctx, doc, m)).created) created += 1;
      });
    }
    ctx.log.info({ version: desired.version, manifests: total, created }, 'release reconciled');
  } catch (err) {
    ctx.log.warn({ err }, 'reconciling the release failed; will try again');
  }
  return 'done';
}
