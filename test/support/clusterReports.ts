// A cluster's report as `cincy report` sends it (POST /api/v1/fleet/reports), for tests that make a
// cluster's update to a rollout's target stand somewhere: updating, completed, or failing.

const iso = (ms: number): string => new Date(ms).toISOString();

export interface UpdateReport {
  id: string;
  channel: string;
  from: string;
  to: string;
  /** When the update started (ms); the one before it completed an hour earlier. */
  startedAt: number;
  /** When it completed (ms), or null while it goes on. */
  completedAt: number | null;
  /** Whether the cluster says Failing=True (reason ClusterOperatorDegraded), and since when. */
  failingSince?: number;
}

/** The body of a report: the ClusterVersion with the update at the head of its history. */
export function updateReport(u: UpdateReport): Record<string, unknown> {
  return {
    clusterID: u.id,
    clusterVersion: {
      spec: { clusterID: u.id, channel: u.channel },
      status: {
        desired: { version: u.to, image: `quay.example/ocp/release:${u.to}` },
        history: [
          {
            state: u.completedAt === null ? 'Partial' : 'Completed',
            version: u.to,
            startedTime: iso(u.startedAt),
            completionTime: u.completedAt === null ? null : iso(u.completedAt),
            image: `quay.example/ocp/release:${u.to}`,
            verified: true,
          },
          {
            state: 'Completed',
            version: u.from,
            startedTime: iso(u.startedAt - 90 * 60_000),
            completionTime: iso(u.startedAt - 60 * 60_000),
            image: `quay.example/ocp/release:${u.from}`,
            verified: true,
          },
        ],
        conditions: [
          u.failingSince === undefined
            ? { type: 'Failing', status: 'False', lastTransitionTime: iso(u.startedAt) }
            : {
                type: 'Failing',
                status: 'True',
                reason: 'ClusterOperatorDegraded',
                lastTransitionTime: iso(u.failingSince),
              },
        ],
      },
    },
    clusterOperators: [],
  };
}
