// The precheck of `adm upgrade recommend`, as `oc adm upgrade recommend` makes it: the alerts firing in the
// cluster's Prometheus (GET /api/v1/alerts), each critical one, each PodDisruptionBudget, image-pull, node,
// virtualization alert and each labelled openShiftUpdatePrecheck="true" a finding (status False) worth a
// look before updating, accepted by the alert's name; a category with none a True "AsExpected" one.
import { fetchAlerts, NODE_ALERTS, type Alert, type PrometheusAccess } from '../../../agent/riskSources/alert.js';

export type { PrometheusAccess };

export interface Finding {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  /** The name --accept takes to accept this finding (for one that is not True). */
  acceptance: string;
}

interface Category {
  name: string;
  /** The message of the True finding when no alert of the category fires; none for a category without one. */
  happy?: string;
  /** Why an alert of the category matters, after "<severity> alert <name> <state>, ". */
  why: string;
  matches(name: string, alert: Alert): boolean;
}

const DRAIN_SLOWING = 'which may slow workload redistribution during rolling node updates.';

// In the order an alert is tried against them: the first that matches takes it.
const CATEGORIES: Category[] = [
  {
    name: 'CriticalAlerts',
    happy: 'No critical alerts firing.',
    why: 'suggesting significant cluster issues worth investigating.',
    matches: (_, a) => a.labels?.severity === 'critical',
  },
  {
    name: 'PodDisruptionBudgetAlerts',
    happy: 'No PodDisruptionBudget alerts firing.',
    why: 'which might slow node drains.',
    matches: (name) => name === 'PodDisruptionBudgetAtLimit',
  },
  {
    name: 'PodImagePullAlerts',
    happy: 'No Pod container image pull alerts firing.',
    why: DRAIN_SLOWING,
    matches: (name) => name === 'KubeContainerWaiting',
  },
  {
    name: 'NodeAlerts',
    happy: 'No Node alerts firing.',
    why: DRAIN_SLOWING,
    matches: (name) => NODE_ALERTS.includes(name),
  },
  {
    name: 'UpdatePrecheckAlerts',
    happy: 'No alerts with the openShiftUpdatePrecheck label true are firing.',
    why: 'suggesting issues worth investigating before updating the cluster.',
    matches: (_, a) => a.labels?.openShiftUpdatePrecheck === 'true',
  },
  {
    name: 'VirtAlerts',
    why: DRAIN_SLOWING,
    matches: (name) => name === 'VirtHandlerDaemonSetRolloutFailing' || name === 'VMCannotBeEvicted',
  },
];

/** A budget alert: PodDisruptionBudgetAtLimit, or a critical PodDisruptionBudgetLimit. */
const budgetAlert = (category: Category, name: string): boolean =>
  category.name === 'PodDisruptionBudgetAlerts' ||
  (category.name === 'CriticalAlerts' && name === 'PodDisruptionBudgetLimit');

/** The precheck's findings from the alerts of the Prometheus at `p`. */
export async function alertFindings(p: PrometheusAccess): Promise<Finding[]> {
  let alerts: Alert[];
  try {
    alerts = await fetchAlerts(p);
  } catch (err) {
    throw new Error(`failed to get alerts from ${p.url}: ${(err as Error).message}`, { cause: err });
  }
  return findingsOf(alerts);
}

/**
 * The findings from the alerts firing: one (False) for each alert of a category, accepted (--accept) by the
 * alert's name; one (True, "AsExpected") for each category with none firing.
 */
export function findingsOf(alerts: Alert[]): Finding[] {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const alert of alerts) {
    const name = alert.labels?.alertname;
    if (!name || alert.state === 'pending') continue;
    const category = CATEGORIES.find((c) => c.matches(name, alert));
    if (!category) continue;
    seen.add(category.name);
    // A critical PodDisruptionBudgetLimit counts for the budget category too.
    if (budgetAlert(category, name)) seen.add('PodDisruptionBudgetAlerts');
    const a = alert.annotations ?? {};
    let summary = a.summary || name;
    if (!summary.endsWith('.')) summary += '.';
    const described = [a.description, a.message].filter(Boolean).join(' | ');
    const description = described ? ` The alert description is: ${described}` : ' The alert has no description.';
    const runbook = a.runbook_url || '<alert does not have a runbook_url annotation>';
    let details = `${summary}${description} ${runbook}`;
    // The budget alerts' texts do not say which budget, so the finding does.
    if (budgetAlert(category, name))
      details = `Namespace=${alert.labels?.namespace ?? ''}, PodDisruptionBudget=${alert.labels?.poddisruptionbudget ?? ''}. ${details}`;
    const state = alert.state ?? 'firing';
    findings.push({
      type: `recommended/${category.name}/${name}/${findings.length}`,
      status: 'False',
      reason: `Alert:${state}`,
      message: `${alert.labels?.severity ?? ''} alert ${name} ${state}, ${category.why} ${details}`,
      acceptance: name,
    });
  }
  for (const c of CATEGORIES)
    if (c.happy && !seen.has(c.name))
      findings.push({
        type: `recommended/${c.name}`,
        status: 'True',
        reason: 'AsExpected',
        message: c.happy,
        acceptance: c.name,
      });
  return findings;
}
