// The mock cluster's Job controller. The CVO's payload Job (`version-<version>-<hash>` in
// openshift-cluster-version, its container image the release pull spec) "downloads" the payload: it
// completes when the payload store has that image and fails (BackoffLimitExceeded) when not. Other Jobs
// complete after a while. Status as batch/v1 reports it; the start time is the job's clock.
import { kubeTime } from '../../clock.js';
import { clone, conditionsOf, save, setObjectCondition } from './controller.js';
import { kindNamed, type KubeObject } from './kinds.js';
import { type ClusterState } from './state.js';

export const PAYLOAD_JOB_MS = 20_000;
export const OTHER_JOB_MS = 30_000;

interface JobStatus {
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  ready?: number;
}

const isPayloadJob = (j: KubeObject): boolean =>
  j.metadata.namespace === 'openshift-cluster-version' && j.metadata.name.startsWith('version-');
const imageOf = (j: KubeObject): string =>
  (j.spec as { template?: { spec?: { containers?: Array<{ image?: string }> } } })?.template?.spec?.containers?.[0]
    ?.image ?? '';

export function reconcileJobs(
  state: ClusterState,
  now: number,
  hasPayload: (image: string) => boolean,
  payloadStore = 'the payload store',
): void {
  const kind = kindNamed('Job');
  for (const before of state.list(kind)) {
    if ((before.spec as { suspend?: boolean } | undefined)?.suspend) continue;
    if (conditionsOf(before).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True'))
      continue;
    const job = clone(before);
    const s = (job.status ??= {}) as JobStatus;
    const started = s.startTime ? Date.parse(s.startTime) : now;
    if (!s.startTime) Object.assign(s, { startTime: kubeTime(now), active: 1, ready: 0 });
    const end = started + (isPayloadJob(job) ? PAYLOAD_JOB_MS : OTHER_JOB_MS);
    if (now >= end) {
      const image = imageOf(job);
      s.active = 0;
      s.ready = 0;
      if (!isPayloadJob(job) || hasPayload(image)) {
        Object.assign(s, { succeeded: 1, completionTime: kubeTime(end) });
        setObjectCondition(job, 'Complete', 'True', '', '', end);
      } else {
        s.failed = 1;
        const why = image ? `the release image ${image} is not in ${payloadStore}` : 'the Job names no container image';
        setObjectCondition(
          job,
          'Failed',
          'True',
          'BackoffLimitExceeded',
          `Job has reached the specified backoff limit: ${why}`,
          end,
        );
      }
    }
    save(state, kind, before, job);
  }
}
