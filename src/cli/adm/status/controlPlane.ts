// The control plane part of `adm upgrade status`, assessed as `oc adm upgrade status` assesses it: the
// cluster operators updated to the target version, updating or waiting, their health, the duration and an
// estimate of the time left, and the insights for the health section (a failing ClusterVersion, an
// operator unavailable or degraded for long, a previous update never completed).
import type { ClusterVersion } from '../../../agent/clusterVersion.js';
import type { Condition } from '../../../agent/conditions.js';
import { alignColumns } from '../../table.js';
import type { ClusterOperator } from './cluster.js';
import { formatOcDuration, roundElapsedAsOc } from '../../../duration.js';
import type { Insight } from './insight.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const RUNBOOKS = 'https://github.com/openshift/runbooks/blob/master/alerts/cluster-monitoring-operator';

export interface ControlPlane {
  assessment: string;
  completion: number;
  completedAt: number;
  duration: number;
  estDuration: number;
  estRemaining: number;
  total: number;
  updated: number;
  waiting: number;
  unavailable: number;
  degraded: number;
  updating: Array<{ name: string; condition: Condition }>;
  target: string;
  from: string;
}

const find = (conditions: Condition[] | undefined, type: string): Condition | undefined =>
  conditions?.find((c) => c.type === type);
const time = (t: string | null | undefined): number => (t ? Date.parse(t) : NaN);

/** The operators of the release: those its manifests annotate; all of them when none is annotated. */
function platformOperators(operators: ClusterOperator[]): ClusterOperator[] {
  const annotated = operators.filter((o) =>
    Object.keys(o.metadata.annotations ?? {}).some(
      (a) => a.startsWith('exclude.release.openshift.io/') || a.startsWith('include.release.openshift.io/'),
    ),
  );
  return annotated.length ? annotated : operators;
}

function operatorInsights(name: string, available?: Condition, degraded?: Condition, now = 0): Insight[] {
  // Each bad condition is a warning after 5 minutes and an error after `errorAfter`.
  const checks = [
    {
      c: available?.status === 'False' && available,
      what: 'unavailable',
      errorAfter: 20,
      runbook: 'ClusterOperatorDown',
    },
    {
      c: degraded?.status === 'True' && degraded,
      what: 'degraded',
      errorAfter: 40,
      runbook: 'ClusterOperatorDegraded',
    },
  ];
  const out: Insight[] = [];
  for (const { c, what, errorAfter, runbook } of checks) {
    if (!c) continue;
    const since = time(c.lastTransitionTime);
    if (now <= since + 5 * MINUTE) continue;
    out.push({
      startedAt: since,
      level: now > since + errorAfter * MINUTE ? 'Error' : 'Warning',
      impact: 'API Availability',
      summary: `Cluster Operator ${name} is ${what} (${c.reason})`,
      description: c.message || '<no message>',
      reference: `${RUNBOOKS}/${runbook}.md`,
    });
  }
  return out;
}

/** How long the last completed update took: the baseline of the estimate (an hour when there is none). */
function baseline(cv: ClusterVersion): number {
  const history = cv.status.history ?? [];
  if (history.length < 3) return HOUR;
  const done = history.slice(1, -1).find((h) => h.state === 'Completed' && h.completionTime);
  return done ? time(done.completionTime) - time(done.startedTime) : HOUR;
}

/**
 * The time left: the total the progress so far suggests (elapsed up to the last observed progress over the
 * share of operators updated, once there has been five minutes of it; else the baseline), less the time
 * spent, with a margin of a fifth.
 */
function estimateRemaining(base: number, toLastProgress: number, updatingFor: number, completion: number): number {
  if (completion >= 1) return 0;
  const total = completion > 0 && toLastProgress > 5 * MINUTE ? toLastProgress / completion : base;
  const left = total - updatingFor;
  const margin = left < 0 ? 1 / 1.2 : 1.2;
  return roundElapsedAsOc(Math.trunc((left * margin) / 1000) * 1000);
}

export function assessControlPlane(
  cv: ClusterVersion,
  operators: ClusterOperator[],
  now: number,
): { data: ControlPlane; insights: Insight[] } {
  const insights: Insight[] = [];
  const target = cv.status.desired?.version ?? '';
  const failing = find(cv.status.conditions, 'Failing');
  if (!failing)
    insights.push({
      startedAt: now,
      level: 'Warning',
      impact: 'Update Stalled',
      summary: 'Cluster Version version has no Failing condition',
      description:
        "Current status of Cluster Version reconciliation is unclear.  See 'oc -n openshift-cluster-version logs -l k8s-app=cluster-version-operator --tail -1' to debug.",
      reference: `${RUNBOOKS}/ClusterOperatorDegraded.md`,
    });
  else if (failing.status !== 'False')
    insights.push({
      startedAt: time(failing.lastTransitionTime),
      level: 'Warning',
      impact: 'Update Stalled',
      summary: `Cluster Version version is failing to proceed with the update (${failing.reason})`,
      description: failing.message,
      reference: `${RUNBOOKS}/ClusterOperatorDegraded.md`,
    });

  const d: ControlPlane = {
    assessment: 'Progressing',
    completion: 0,
    completedAt: now,
    duration: 0,
    estDuration: 0,
    estRemaining: 0,
    total: 0,
    updated: 0,
    waiting: 0,
    unavailable: 0,
    degraded: 0,
    updating: [],
    target: 'unknown',
    from: '',
  };
  let lastProgress = 0;
  let mcoStarted = 0;
  for (const co of platformOperators(operators)) {
    const name = co.metadata.name;
    const updated = (co.status?.versions ?? []).some((v) => v.name === 'operator' && v.version === target);
    if (updated) d.updated++;
    d.total++;
    const available = find(co.status?.conditions, 'Available');
    const degraded = find(co.status?.conditions, 'Degraded');
    const progressing = find(co.status?.conditions, 'Progressing');
    if (progressing) {
      lastProgress = Math.max(lastProgress, time(progressing.lastTransitionTime) || 0);
      if (!updated && progressing.status === 'True') d.updating.push({ name, condition: progressing });
      if (!updated && progressing.status === 'False') d.waiting++;
      if (!updated && progressing.status === 'True' && name === 'machine-config')
        mcoStarted = time(progressing.lastTransitionTime);
    }
    if (available?.status !== 'True') d.unavailable++;
    else if (degraded?.status === 'True') d.degraded++;
    insights.push(...operatorInsights(name, available, degraded, now));
  }
  const completed = d.updated === d.total;
  d.assessment = completed ? 'Completed' : 'Progressing';
  // The machine-config operator, last to update, flips Progressing as nodes reboot: its start counts.
  if (mcoStarted && d.total - d.updated === 1) lastProgress = mcoStarted;

  const history = cv.status.history ?? [];
  let updatingFor = 0;
  let toLastProgress = 0;
  const current = history[0];
  if (current) {
    const started = time(current.startedTime);
    if (!(lastProgress > started)) lastProgress = now;
    toLastProgress = lastProgress - started;
    d.completedAt = current.state === 'Completed' && current.completionTime ? time(current.completionTime) : now;
    updatingFor = d.completedAt - started;
    d.duration = roundElapsedAsOc(updatingFor);
  }
  d.target = current?.version ?? 'unknown';
  const previous = history[1];
  if (history.length === 1) d.from = ' (a new install)';
  else if (previous?.state === 'Partial') d.from = ` (from incomplete ${previous.version})`;
  else d.from = ` (from ${previous?.version ?? 'unknown'})`;
  if (!completed && previous?.state === 'Partial') {
    const last = history.slice(2).find((h) => h.state === 'Completed')?.version ?? 'unknown';
    insights.push({
      startedAt: time(current!.startedTime),
      level: 'Warning',
      impact: 'None',
      summary: `Previous update to ${previous.version} never completed, last complete update was ${last}`,
      description: `Current update to ${d.target} was initiated while the previous update to version ${previous.version} was still in progress`,
      reference:
        'https://docs.openshift.com/container-platform/latest/updating/troubleshooting_updates/gathering-data-cluster-update.html#gathering-clusterversion-history-cli_troubleshooting_updates',
    });
  }

  const share = d.total ? d.updated / d.total : 1;
  d.completion = share * 100;
  if (!completed) {
    d.estRemaining = estimateRemaining(baseline(cv), toLastProgress, updatingFor, share);
    d.estDuration = Math.trunc((updatingFor + d.estRemaining) / MINUTE) * MINUTE;
    if (d.estRemaining < -10 * MINUTE) d.assessment = 'Stalled';
    else if (d.estRemaining < 0) d.assessment = 'Progressing - Slow';
  }
  return { data: d, insights };
}

/** The time left as oc words it: under ten minutes is "<10m"; long overdue says what was expected. */
function vagueUnder(remaining: number, estimated: number): string {
  if (remaining < -10 * MINUTE) return `N/A; estimate duration was ${formatOcDuration(estimated)}`;
  if (remaining < 10 * MINUTE) return '<10m';
  return formatOcDuration(remaining);
}

export function renderControlPlane(d: ControlPlane, detailed: boolean, now: number): string {
  if (d.updated === d.total)
    return `= Control Plane =\nUpdate to ${d.target} successfully completed at ${new Date(d.completedAt).toISOString().replace(/\.\d{3}Z$/, 'Z')} (duration: ${formatOcDuration(d.duration)})\n`;
  const health = [`${d.total - d.unavailable - d.degraded} Healthy`];
  if (d.unavailable) health.push(`${d.unavailable} Unavailable`);
  if (d.degraded) health.push(`${d.degraded} Available but degraded`);
  let out = '= Control Plane =\n';
  out += `Assessment:      ${d.assessment}\n`;
  out += `Target Version:  ${d.target}${d.from}\n`;
  if (d.updating.length) out += `Updating:        ${d.updating.map((u) => u.name).join(', ')}\n`;
  out += `Completion:      ${Math.round(d.completion)}% (${d.updated} operators updated, ${d.updating.length} updating, ${d.waiting} waiting)\n`;
  out += `Duration:        ${formatOcDuration(d.duration)}`;
  if (d.estRemaining) out += ` (Est. Time Remaining: ${vagueUnder(d.estRemaining, d.estDuration)})`;
  out += `\nOperator Health: ${health.join(', ')}\n`;
  if (detailed && d.updating.length) {
    out += '\nUpdating Cluster Operators\n';
    out += alignColumns(
      [
        ['NAME', 'SINCE', 'REASON', 'MESSAGE'],
        ...d.updating.map((u) => [
          u.name,
          formatOcDuration(now - time(u.condition.lastTransitionTime)),
          u.condition.reason || '-',
          u.condition.message,
        ]),
      ],
      { padding: 3 },
    );
  }
  return out;
}
