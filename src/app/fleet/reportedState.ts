// What the fleet keeps of a cluster's report, and what it makes of the cluster's updates. A report is
// the ClusterVersion and ClusterOperators as the cluster's API server returns them; of them the fleet
// keeps a bounded summary (the conditions an update is judged by, the operators that are not well, each
// text cut to a bound) and, from the ClusterVersion's history, each update: its edge, when it started,
// when it completed, whether the cluster says it is failing. The cluster-version-operator writes the
// history newest first, an entry per target (state Partial until every manifest of it was applied, then
// Completed with its completionTime) and the entry before it is the version it left
// (pkg/cvo/status_history.go: mergeOperatorHistory).
import { compareVersions, isReleaseVersion } from '../../graph/version.js';
import { UPDATES_PER_CLUSTER } from '../../schemas/fleet.js';
import type { FleetReportBody, FleetUpdateState } from '../../schemas/fleetReports.js';

/** Not completed this long after it started (ms), an update counts as failing (reason Timeout). */
export const FAILING_AFTER_MS = 3 * 3600_000;
/** Neither polled nor reported for this long (ms) while an update had not completed, a cluster counts as silent. */
export const SILENT_AFTER_MS = 3600_000;

/** The ClusterVersion conditions kept: those an update is judged by. */
const KEPT_CONDITIONS = ['Available', 'Failing', 'Progressing', 'ReleaseAccepted', 'RetrievedUpdates', 'Upgradeable'];
const REASON_CHARS = 128;
const MESSAGE_CHARS = 512;
/** Operators named per list (unavailable, degraded, progressing); the total says how many there are. */
export const OPERATORS_NAMED = 50;

/** One update of a cluster as its ClusterVersion's history tells it. Times are ms since 1970. */
export interface ReportedUpdateRecord {
  from: string;
  to: string;
  startedAt: number;
  completedAt: number | null;
  /** When the cluster began saying Failing=True about it (its newest update only), or null. */
  failingSince: number | null;
  failingReason: string | null;
}

export interface KeptCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** The summary of a report the store keeps (its updates apart, in their own rows). */
export interface KeptReport {
  channel: string | null;
  version: string | null;
  conditions: KeptCondition[];
  operators: { total: number; unavailable: string[]; degraded: string[]; progressing: string[] };
}

/** A report as kept: the summary, and the updates its history shows (newest first, at most UPDATES_PER_CLUSTER). */
export function keptReport(body: FleetReportBody, at: number): { report: KeptReport; updates: ReportedUpdateRecord[] } {
  const status = body.clusterVersion.status ?? {};
  const conditions = (status.conditions ?? [])
    .filter((c) => KEPT_CONDITIONS.includes(c.type))
    .map((c) => ({
      type: c.type,
      status: c.status,
      ...(c.reason && { reason: cut(c.reason, REASON_CHARS) }),
      ...(c.message && { message: cut(c.message, MESSAGE_CHARS) }),
    }));
  const operators = { total: body.clusterOperators.length, unavailable: [], degraded: [], progressing: [] } as {
    total: number;
    unavailable: string[];
    degraded: string[];
    progressing: string[];
  };
  for (const co of body.clusterOperators) {
    const is = (type: string, value: string): boolean =>
      (co.status?.conditions ?? []).some((c) => c.type === type && c.status === value);
    const name = co.metadata.name.trim();
    if (!is('Available', 'True')) push(operators.unavailable, name);
    if (is('Degraded', 'True')) push(operators.degraded, name);
    if (is('Progressing', 'True')) push(operators.progressing, name);
  }
  for (const list of [operators.unavailable, operators.degraded, operators.progressing]) list.sort();
  const failing = conditions.find((c) => c.type === 'Failing' && c.status === 'True');
  const failingAt = (status.conditions ?? []).find((c) => c.type === 'Failing')?.lastTransitionTime;
  return {
    report: {
      channel: body.clusterVersion.spec.channel?.trim() || null,
      version: status.desired?.version?.trim() || null,
      conditions,
      operators,
    },
    updates: updatesOf(
      status.history ?? [],
      failing && { since: timeOr(failingAt, at), reason: failing.reason ?? 'Failing' },
    ),
  };
}

type HistoryEntry = NonNullable<NonNullable<FleetReportBody['clusterVersion']['status']>['history']>[number];

/** A history entry with its times read; consecutive attempts at one version merged into one. */
interface Attempt {
  version: string;
  state: 'Completed' | 'Partial';
  startedAt: number;
  endedAt: number | null;
}

/**
 * The updates of a history (newest first). The cluster-version-operator adds an entry per target it is
 * asked for (pkg/cvo/status.go: mergeOperatorHistory), a new one when the same version comes again by
 * another image: an entry left Partial and the entries of its version just above it are one attempt,
 * started when the first of them started and ended as the newest of them ended; the same version again
 * above one that Completed is a re-apply, not an update. An attempt's update starts from the nearest older attempt that
 * Completed, the version the cluster ran (an attempt left half-way is not where it came from), and only
 * an attempt to a newer release is an update. When the history was pruned (pkg/cvo/status_history.go:
 * prune keeps the newest five and the last completed), older edges may skip a removed entry. An
 * attempt below the newest that is still Partial was left for another target before it completed, and
 * counts as failing (Superseded); the newest can be failing now, while it is Partial. Entries whose
 * time does not read, or that share a start with a newer one, are left out.
 */
function updatesOf(
  history: readonly HistoryEntry[],
  failing: { since: number; reason: string } | undefined,
): ReportedUpdateRecord[] {
  const attempts: Attempt[] = [];
  const starts = new Set<number>();
  for (const h of history) {
    const startedAt = Date.parse(h.startedTime);
    const endedAt = h.completionTime ? Date.parse(h.completionTime) : null;
    if (Number.isNaN(startedAt) || Number.isNaN(endedAt) || starts.has(startedAt)) continue;
    starts.add(startedAt);
    const version = h.version.trim();
    const newer = attempts.at(-1);
    // An attempt left Partial and asked for again is one attempt; after a Completed one, the same version
    // again is a re-apply, no update (its `from` is its own version).
    if (newer && newer.version === version && h.state === 'Partial')
      newer.startedAt = Math.min(newer.startedAt, startedAt);
    else attempts.push({ version, state: h.state, startedAt, endedAt });
  }
  const updates: ReportedUpdateRecord[] = [];
  for (let i = 0; i < attempts.length && updates.length < UPDATES_PER_CLUSTER; i++) {
    const a = attempts[i]!;
    const from = attempts.slice(i + 1).find((older) => older.state === 'Completed')?.version;
    if (!from || !isReleaseVersion(from) || !isReleaseVersion(a.version)) continue;
    if (compareVersions(from, a.version) >= 0) continue; // back to an older release: no update
    const superseded = i > 0 && a.state === 'Partial';
    const newest = i === 0 && a.state === 'Partial' && failing;
    updates.push({
      from,
      to: a.version,
      startedAt: a.startedAt,
      completedAt: a.state === 'Completed' ? a.endedAt : null,
      failingSince: superseded ? (a.endedAt ?? attempts[i - 1]!.startedAt) : newest ? failing.since : null,
      failingReason: superseded ? 'Superseded' : newest ? cut(failing.reason, REASON_CHARS) : null,
    });
  }
  return updates;
}

/**
 * When this service counts an update from, on its own clock (`at`: the report that first told of it). An
 * update still going on counts from then, so a cluster whose clock is off (or simulated) cannot make it
 * time out early or never; one already completed when first told of counts from its own start, so a
 * reporter new to a cluster does not make its old updates look recent.
 */
export function seenAtOf(u: Pick<ReportedUpdateRecord, 'startedAt' | 'completedAt'>, at: number): number {
  return u.completedAt !== null ? Math.min(u.startedAt, at) : at;
}

/**
 * Where an update stands `now`: completed (its history says so), failing (the cluster says Failing=True
 * about it), silent (no poll or report for SILENT_AFTER_MS, `lastHeard` being the later of the two),
 * failing with reason Timeout (not completed FAILING_AFTER_MS after this service first heard of it,
 * `seenAt`), else progressing. A cluster falls silent before its update times out when both hold:
 * silence says more. Every time compared here is this service's own.
 */
export function updateStateOf(
  u: Pick<ReportedUpdateRecord, 'completedAt' | 'failingSince' | 'failingReason'> & { seenAt: number },
  lastHeard: number,
  now: number,
): { state: FleetUpdateState; reason?: string } {
  if (u.completedAt !== null) return { state: 'completed' };
  if (u.failingSince !== null) return { state: 'failing', reason: u.failingReason ?? 'Failing' };
  if (lastHeard < now - SILENT_AFTER_MS) return { state: 'silent' };
  if (u.seenAt < now - FAILING_AFTER_MS) return { state: 'failing', reason: 'Timeout' };
  return { state: 'progressing' };
}

/** A time the cluster gave, or `fallback` when it gave none that reads. */
function timeOr(text: string | undefined, fallback: number): number {
  const t = text ? Date.parse(text) : NaN;
  return Number.isNaN(t) ? fallback : t;
}

function push(list: string[], name: string): void {
  if (list.length < OPERATORS_NAMED) list.push(name);
}

/** `text` trimmed, and cut to `max` characters (an ellipsis saying so). */
function cut(text: string, max: number): string {
  const t = text.trim();
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}
