// The payload Job, as the cluster-version-operator runs it inside a cluster (pkg/cvo/updatepayload.go):
// `version-<version>-<hash>` in openshift-cluster-version runs the release image and moves its manifests to
// the host folder the operator reads. The same waiting serves the Jobs a payload itself carries, which must
// finish before the manifests after them.
import { createHash } from 'node:crypto';
import { apiMessage } from '../../cluster/apiError.js';
import { KUBE_LABEL } from '../../cluster/labels.js';
import { RESOURCES } from '../../cluster/resources.js';
import type { ClusterRelease } from '../clusterVersion.js';
import type { Condition } from '../conditions.js';
import type { ApiObject, ObjectRef, OperatorContext } from './context.js';
import { TIMING } from './timing.js';

const PAYLOAD_NAMESPACE = 'openshift-cluster-version';
const MASTER_ROLE = KUBE_LABEL.masterRole;

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

/** Where the Job writes, on its node: the folder the CVO's Job writes to, which the agent mounts as its store. */
export const PAYLOAD_HOST_PATH = '/etc/cvo/updatepayloads';

/**
 * The payload Job of a release, as the CVO makes it: on the operator's node (`nodeName`), a control-plane node
 * in any case, with the host folder mounted; init containers move the image's manifests/ and
 * release-manifests/ into a temporary folder beside the payload's place, and the last step renames it in, so
 * nobody reads a half-written payload. The place is the store's: sha256/<hex of the image's digest>. Unlike
 * the CVO's, its containers are not privileged, which a Kubernetes API server without --allow-privileged
 * refuses; on OpenShift it runs under the privileged SCC, which allows the host folder.
 */
export function payloadJob(release: ClusterRelease, digestHex: string, nodeName?: string): ApiObject {
  const name = payloadJobName(release);
  const final = `${PAYLOAD_HOST_PATH}/sha256/${digestHex}`;
  const tmp = `${final}.tmp-${name}`;
  const step = (container: string, command: string[]): object => ({
    name: container,
    image: release.image,
    command,
    volumeMounts: [{ name: 'payloads', mountPath: PAYLOAD_HOST_PATH }],
    securityContext: { readOnlyRootFilesystem: false },
    resources: { requests: { cpu: '10m', memory: '50Mi', 'ephemeral-storage': '2Mi' } },
  });
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: PAYLOAD_NAMESPACE, labels: { 'k8s-app': 'retrieve-openshift-release' } },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: TIMING.jobTimeout / 1000,
      template: {
        metadata: {
          labels: { 'k8s-app': 'retrieve-openshift-release' },
          // The security context constraint OpenShift admits it under (one that allows the host folder).
          annotations: { 'openshift.io/required-scc': 'privileged' },
        },
        spec: {
          restartPolicy: 'Never',
          ...(nodeName && { nodeName }),
          nodeSelector: { [MASTER_ROLE]: '' },
          tolerations: [{ key: MASTER_ROLE }],
          priorityClassName: 'system-cluster-critical',
          initContainers: [
            step('cleanup', ['rm', '-fR', tmp, final]),
            step('make-temporary-directory', ['mkdir', '-p', tmp]),
            step('move-operator-manifests-to-temporary-directory', ['mv', '/manifests', `${tmp}/manifests`]),
            step('move-release-manifests-to-temporary-directory', [
              'mv',
              '/release-manifests',
              `${tmp}/release-manifests`,
            ]),
          ],
          containers: [step('rename-to-final-location', ['mv', tmp, final])],
          volumes: [{ name: 'payloads', hostPath: { path: PAYLOAD_HOST_PATH } }],
        },
      },
    },
  };
}

/** Runs the payload Job of a release (again, when an earlier one failed) and waits for it. */
export async function runPayloadJob(
  ctx: OperatorContext,
  release: ClusterRelease,
  nodeName: string | undefined,
  abandon?: () => Promise<boolean>,
): Promise<JobOutcome> {
  let digestHex: string;
  try {
    digestHex = ctx.payloads.digestOf(release.image).slice('sha256:'.length);
  } catch (err) {
    return (err as Error).message;
  }
  const job = payloadJob(release, digestHex, nodeName);
  const { namespace, name } = job.metadata;
  try {
    let existing = await ctx.read(job);
    if (existing && jobState(existing).failed) {
      await ctx.api.delete(RESOURCES.jobs, job.metadata);
      existing = undefined;
    }
    if (!existing) await ctx.api.create(RESOURCES.jobs, job);
  } catch (err) {
    // A missing namespace, a refused Job: what the administrator has to fix, said where they look.
    return `could not create the Job ${namespace}/${name}: ${apiMessage(err)}`;
  }
  return waitForJob(ctx, job, abandon);
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
