// Taking a cluster's report (POST /api/v1/fleet/reports): the token must be bound to the cluster the
// report is for (a fleet:report token names one cluster id), the report's two ids must agree, and what
// is kept of it (reportedState.ts) is written to the store off the graph's path (no rebuild follows).
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { FleetReportAnswer, FleetReportBody } from '../../schemas/fleetReports.js';
import type { OutcomeRow } from '../../store/fleetReports.js';
import type { Store } from '../../store/store.js';
import type { VerifiedToken } from '../auth/tokenVerifier.js';
import { RateLimit, type Allowance } from '../rateLimit.js';
import { keptReport, seenAtOf, updateStateOf } from './reportedState.js';

/**
 * Reports taken per cluster per minute. A cluster reports on change (at most every `cincy report
 * --check`, 10 s) and every few minutes; a report may be a megabyte of JSON to parse, so a token
 * sending more is refused from its headers, before its body is read.
 */
export const REPORTS_PER_MINUTE = 12;

export class ReportIntake {
  private readonly perCluster: RateLimit;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** How the fleet stores a cluster id (itself, or its keyed hash with --fleet-hash-ids), and its reads to renew. */
    private readonly fleet: { storedId(id: string): Promise<string>; forget(): void },
  ) {
    this.perCluster = new RateLimit(REPORTS_PER_MINUTE, clock);
  }

  /**
   * Whether a report with `token` may be read at all: the token must name its cluster, and the cluster
   * be within REPORTS_PER_MINUTE. Throws 403 for a token bound to no cluster; an allowance over the limit says so.
   */
  admit(token: VerifiedToken): Allowance {
    if (token.clusterId === undefined)
      throw new ApiError(
        'forbidden',
        `token of '${token.subject}' is bound to no cluster (cincy token create --scope fleet:report --cluster-id ID)`,
      );
    return this.perCluster.count(`cluster ${token.clusterId}`);
  }

  async take(body: FleetReportBody, token: VerifiedToken): Promise<FleetReportAnswer> {
    const id = body.clusterID.toLowerCase();
    if (token.clusterId === undefined) this.admit(token); // throws
    if (token.clusterId !== id)
      throw new ApiError('forbidden', `token of '${token.subject}' reports for cluster ${token.clusterId}, not ${id}`);
    if (body.clusterVersion.spec.clusterID.toLowerCase() !== id)
      throw new ApiError('invalid_request', 'body/clusterVersion/spec/clusterID: is not body/clusterID');
    const at = this.clock.now();
    const { report, updates } = keptReport(body, at);
    const stored = await this.fleet.storedId(id);
    const rows = updates.map((u) => ({ ...u, seenAt: seenAtOf(u, at) }));
    const newest = await this.store.write(
      async (tx) => {
        await tx.fleetReports.put(stored, at, JSON.stringify(report), rows);
        return (await tx.fleetReports.outcomesOf(stored))[0];
      },
      { unserved: true },
    );
    this.fleet.forget();
    return {
      clusterID: id,
      reportedAt: new Date(at).toISOString(),
      ...(newest && { update: reportedUpdate(newest, at, at) }),
    };
  }
}

/** An update as the fleet API shows it: its edge, its times, and where it stands now. */
export function reportedUpdate(
  u: OutcomeRow,
  lastHeard: number,
  now: number,
): NonNullable<FleetReportAnswer['update']> {
  const { state, reason } = updateStateOf(u, lastHeard, now);
  return {
    from: u.from,
    to: u.to,
    startedAt: new Date(u.startedAt).toISOString(),
    ...(u.completedAt !== null && { completedAt: new Date(u.completedAt).toISOString() }),
    state,
    ...(reason && { reason }),
  };
}
