// Step 3 of an update: the payload of the release image reaches the payload store the executor reads.
// Inside the cluster the cluster-version-operator's way: a Job on the agent's own node runs the release image
// and moves its manifests into the host folder the agent also mounts (payloadJob.ts). Outside the cluster
// that folder is on a node the agent cannot read, so the agent pulls the release image from its registry
// itself, by digest, straight into its store (src/payload/pull.ts).
import { pullIntoStore } from '../../payload/pull.js';
import type { ClusterRelease } from '../clusterVersion.js';
import type { OperatorContext } from './context.js';
import { runPayloadJob, type JobOutcome } from './payloadJob.js';

/** How retrieving ended: undefined when the payload is in the store, else why not (or ABANDONED). */
export async function retrievePayload(
  ctx: OperatorContext,
  release: ClusterRelease,
  abandon?: () => Promise<boolean>,
): Promise<JobOutcome> {
  if (ctx.retrieval.kind === 'job') return runPayloadJob(ctx, release, ctx.retrieval.nodeName, abandon);
  if (ctx.payloads.has(release.image)) return undefined;
  try {
    const files = await pullIntoStore(ctx.payloads, release.image, ctx.retrieval.registry);
    ctx.log.info({ image: release.image, files, store: ctx.payloads.dir }, 'payload pulled from its registry');
    return undefined;
  } catch (err) {
    return `pulling the release image ${release.image} failed: ${(err as Error).message}`;
  }
}
