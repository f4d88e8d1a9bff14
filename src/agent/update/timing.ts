// The intervals of the update executor, in the cluster's time. The retry of one manifest follows the
// cluster-version-operator's apply backoff (pkg/cvo/sync_worker.go: 10 s, factor 1.3, 3 steps, at most
// 15 s); the others are how often it looks again.
export const TIMING = {
  /** A refused acceptance or a failed runlevel is tried again after this. */
  retry: 60_000,
  /** How often the ClusterOperators of a runlevel are checked while waiting on them. */
  gatePoll: 10_000,
  /** How often a Job is checked while waiting on it. */
  jobPoll: 5_000,
  /** The payload Job must finish within this. */
  jobTimeout: 4 * 60_000,
  /** Retry of one manifest. */
  backoff: { first: 10_000, factor: 1.3, steps: 3, cap: 15_000 },
  /** Between two passes that apply the running release's manifests again (objects that drifted or were deleted). */
  reconcile: 30 * 60_000,
  /** The longest an idle executor waits before looking at spec.desiredUpdate again without a change notice. */
  idle: 60_000,
};
