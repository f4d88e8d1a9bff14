// The mock cluster's Job controller. The CVO's payload Job (`version-<version>-<hash>` in
// openshift-cluster-version, its container image the release pull spec) "downloads" the payload: it
// completes once the payload is in the payload store — there already, or pulled from the registry the pull
// spec names (the pull runs on the controller's host side; this reads how it stands) — and fails
// (BackoffLimitExceeded) when it is not there and cannot be pulled. Other Jobs complete after a while.
// Status as batch/v1 reports it; the start time is the job's clock.
import { kubeTime } from 'cincy/clock';
import { clone, conditionsOf, save, setObjectCondition } from './controller.js';
import { kindNamed, type StoredObject } from '../apiserver/kinds.js';
import { type ClusterState } from '../apiserver/state.js';

export const PAYLOAD_JOB_MS = 20_000;
export const OTHER_JOB_MS = 30_000;

/** Where the payload of a payload Job stands: stored, still being pulled, or missing for good (and why). */
export type PayloadAvailability = { state: 'stored' } | { state: 'pulling' } | { state: 'missing'; reason: string };

interface JobStatus {
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  ready?: number;
}

export const isPayloadJob = (j: StoredObject): boolean =>
  j.metadata.namespace === 'openshift-cluster-version' && j.metadata.name.startsWith('version-');
export const jobImage = (j: StoredObject): string =>
  (j.spec as { template?: { spec?: { containers?: Array<{ image?: string }> } } })?.template?.spec?.containers?.[0]
    ?.image ?? '';
export const jobFinished = (j: StoredObject): boolean =>
  conditionsOf(j).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
/** What tells two Jobs apart, also one deleted and made again under the same name. */
export const jobKey = (j: StoredObject): string =>
  `${j.metadata.namespace}/${j.metadata.name}/${j.metadata.uid ?? j.metadata.creationTimestamp ?? ''}`;

/** One pass; `payloadOf` says where the payload of a payload Job's image stands (it only reads). */
export function reconcileJobs(
  state: ClusterState,
  now: number,
  payloadOf: (image: string, job: string) => PayloadAvailability,
): void {
  const kind = kindNamed('Job');
  for (const before of state.list(kind)) {
    if ((before.spec as { suspend?: boolean } | undefined)?.suspend) continue;
    if (jobFinished(before)) continue;
    const job = clone(before);
    const s = (job.status ??= {}) as JobStatus;
    const started = s.startTime ? Date.parse(s.startTime) : now;
    if (!s.startTime) Object.assign(s, { startTime: kubeTime(now), active: 1, ready: 0 });
    const end = started + (isPayloadJob(job) ? PAYLOAD_JOB_MS : OTHER_JOB_MS);
    if (now >= end) {
      const image = jobImage(job);
      const payload: PayloadAvailability = !isPayloadJob(job)
        ? { state: 'stored' }
        : image
          ? payloadOf(image, jobKey(job))
          : { state: 'missing', reason: 'the Job names no container image' };
      if (payload.state === 'stored') {
        Object.assign(s, { active: 0, ready: 0, succeeded: 1, completionTime: kubeTime(end) });
        setObjectCondition(job, 'Complete', 'True', '', '', end);
      } else if (payload.state === 'missing') {
        Object.assign(s, { active: 0, ready: 0, failed: 1 });
        setObjectCondition(
          job,
          'Failed',
          'True',
          'BackoffLimitExceeded',
          `Job has reached the specified backoff limit: ${payload.reason}`,
          end,
        );
      } // else the pull goes on: the Job stays active
    }
    save(state, kind, before, job);
  }
}
