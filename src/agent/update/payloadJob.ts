// Step 3 of an update: the payload is retrieved by a Job, as the cluster-version-operator does it
// (pkg/cvo/updatepayload.go): `version-<version>-<hash>` in openshift-cluster-version runs the release image
// and copies its release-manifests/ to the shared volume the operator reads. The same waiting serves the
// Jobs a payload itself carries, which must finish before the manifests after them.
import { createHash } from 'node:crypto';
import { RESOURCES } from '../../cluster/resources.js';
import type { ClusterRelease } from '../clusterVersion.js';
import type { Condition } from '../conditions.js';
import type { ObjectRef, OperatorContext } from './context.js';
import { TIMING } from './timing.js';

/** A wait given up because the desired update changed under it. */
export const ABANDONED = Symbol('abandoned');

/** How a wait on a Job ended: undefined when it completed, else why not. */
export type JobOutcome = string | typeof ABANDONED | undefined;

/**
 * The Job's name, `version-<version>-<5 characters>` as the CVO names it; the characters come from a hash of
 * the image rather than at random, so that an operator started again finds the Job it made.
 */
export function payloadJobName(release: ClusterRelease): string {
  const hash =
    createHash('sha256')
      .update(release.image)
      .digest('base64url')
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 5) || 'x';
  return `version-${release.version || 'image'}-${hash}`
    .toLowerCase()
    .replace(/[^a-z0-9.-]/g, '-')
    .slice(0, 63);
}

/** Runs the payload Job of a release (again, when an earlier one failed) and waits for it. */
export async function retrievePayload(
  ctx: OperatorContext,
  release: ClusterRelease,
  abandon?: () => Promise<boolean>,
): Promise<JobOutcome> {
  const name = payloadJobName(release);
  const header = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'openshift-cluster-version' } };
  let job = await ctx.read(header);
  if (job && jobState(job).failed) {
    await ctx.api.delete(RESOURCES.jobs, header.metadata);
    job = undefined;
  }
  if (!job) {
    const copy = `mkdir -p /etc/cvo/updatepayloads/${name} && cp -r /release-manifests /etc/cvo/updatepayloads/${name}/`;
    await ctx.api.create(RESOURCES.jobs, {
      ...header,
      spec: {
        backoffLimit: 0,
        activeDeadlineSeconds: TIMING.jobTimeout / 1000,
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [{ name: 'payload', image: release.image, command: ['/bin/sh', '-c', copy] }],
          },
        },
      },
    });
  }
  return waitForJob(ctx, header, abandon);
}

/** Waits for a Job to finish, at most TIMING.jobTimeout; ABANDONED as soon as `abandon` says so. */
export async function waitForJob(
  ctx: OperatorContext,
  ref: ObjectRef,
  abandon?: () => Promise<boolean>,
): Promise<JobOutcome> {
  const deadline = ctx.clock.now() + TIMING.jobTimeout;
  while (ctx.clock.now() < deadline && !ctx.stopped) {
    const state = jobState((await ctx.read(ref)) ?? {});
    if (state.complete) return undefined;
    if (state.failed) return state.message;
    if (await abandon?.()) return ABANDONED;
    await ctx.pause(TIMING.jobPoll);
  }
  return `timed out waiting for the job ${ref.metadata.name} to complete`;
}

function jobState(job: { status?: unknown }): { complete: boolean; failed: boolean; message: string } {
  const conditions = (job.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
  const failed = conditions.find((c) => c.type === 'Failed' && c.status === 'True');
  return {
    complete: conditions.some((c) => c.type === 'Complete' && c.status === 'True'),
    failed: !!failed,
    message: failed ? `${failed.reason}: ${failed.message}` : '',
  };
}
