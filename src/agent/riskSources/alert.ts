// Firing alerts of the cluster's Prometheus as risks of every update, as the newest cluster-version-
// operator's pkg/risk/alert source makes them (alertsToRisks): a critical alert, PodDisruptionBudgetAtLimit,
// the image-pull, node and virtualization alerts, and any labelled openShiftUpdatePrecheck="true" become a
// risk named after the alert, always applying, with an Applies condition that says which alert fires and
// why it matters; several alerts of one name are one risk whose condition joins their messages. Pending
// alerts do not count. The alerts come from GET /api/v1/alerts (in a cluster, the Thanos querier).
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { readBounded } from '../../readBounded.js';
import type { Condition } from '../conditions.js';
import { forVersions, unknownRisk, type RiskSource, type SourceRisk } from './source.js';
import { ALERT_SOURCE } from './names.js';

export interface PrometheusAccess {
  url: string;
  tokenFile?: string;
  caFile?: string;
}

export interface Alert {
  labels?: {
    alertname?: string;
    severity?: string;
    namespace?: string;
    poddisruptionbudget?: string;
    openShiftUpdatePrecheck?: string;
  };
  annotations?: { summary?: string; description?: string; message?: string; runbook_url?: string };
  state?: string;
  activeAt?: string;
}

const MAX_BYTES = 8 * 1024 * 1024;
const MAX_ALERTS = 10_000;
/** Bounds on what one alert may bring into the ClusterVersion: its texts are cut, not trusted whole. */
const MAX_TEXT = 1_024;
const ANSWER_TIMEOUT_MS = 30_000;
/** The joined messages of one alert name: well within a condition message's 32,768 characters. */
const MAX_JOINED = 8_192;

export const NODE_ALERTS = [
  'KubeletHealthState',
  'KubeNodeNotReady',
  'KubeNodeReadinessFlapping',
  'KubeNodeUnreachable',
];
export const PULL_WAITING_ALERTS = ['KubeContainerWaiting'];
export const VIRT_ALERTS = ['VirtHandlerDaemonSetRolloutFailing', 'VMCannotBeEvicted'];
const PDB_LIMIT = 'PodDisruptionBudgetLimit';
const PDB_AT_LIMIT = 'PodDisruptionBudgetAtLimit';
const RUNBOOK_NOT_FOUND = 'https://github.com/openshift/runbooks/tree/master/alerts?runbook=notfound';

/**
 * The alerts Prometheus has, pending or firing, bounded in bytes and count, within one deadline for the
 * whole answer (a Prometheus that trickles its answer cannot hold the poll).
 */
export async function fetchAlerts(p: PrometheusAccess): Promise<Alert[]> {
  const token = p.tokenFile ? readFileSync(p.tokenFile, 'utf8').trim() : undefined;
  const dispatcher = new Agent(p.caFile ? { connect: { ca: readFileSync(p.caFile, 'utf8') } } : {});
  const signal = AbortSignal.timeout(ANSWER_TIMEOUT_MS);
  try {
    const res = await request(new URL('/api/v1/alerts', p.url), {
      headers: { accept: 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      dispatcher,
      signal,
    });
    const body = await readBounded(res.body, MAX_BYTES, () => new Error(`an answer over ${MAX_BYTES} bytes`));
    if (res.statusCode !== 200) throw new Error(`unexpected HTTP status ${res.statusCode} from ${p.url}`);
    const doc = JSON.parse(body.toString('utf8')) as { data?: { alerts?: unknown } };
    if (!Array.isArray(doc.data?.alerts)) throw new Error(`no alerts list in the answer of ${p.url}`);
    if (doc.data.alerts.length > MAX_ALERTS) throw new Error(`over ${MAX_ALERTS} alerts in the answer of ${p.url}`);
    return doc.data.alerts as Alert[];
  } catch (err) {
    if (signal.aborted) throw new Error(`no whole answer from ${p.url} in ${ANSWER_TIMEOUT_MS / 1000} s`);
    throw err;
  } finally {
    await dispatcher.close();
  }
}

/** A string field of an alert, cut to its bound; anything else (a number, a list, nothing) is empty. */
const text = (v: unknown): string =>
  typeof v !== 'string' ? '' : v.length > MAX_TEXT ? `${v.slice(0, MAX_TEXT)}…` : v;

/** The risks of the alerts firing, in name order (pkg/risk/alert alertsToRisks). */
export function alertRisks(alerts: Alert[]): SourceRisk[] {
  const risks = new Map<string, SourceRisk & { applies: Condition }>();
  /** Alerts of a name whose messages no longer fit in its condition. */
  const left = new Map<string, number>();
  for (const alert of alerts) {
    if (typeof alert !== 'object' || alert === null) continue;
    const labels = (typeof alert.labels === 'object' && alert.labels) || {};
    const a = (typeof alert.annotations === 'object' && alert.annotations) || {};
    const name = text(labels.alertname);
    // Pending alerts do not count; an alert in no known state says nothing either.
    if (!name || alert.state !== 'firing') continue;
    const severity = text(labels.severity);
    const state = 'firing';
    let summary = text(a.summary) || name;
    if (!summary.endsWith('.')) summary += '.';
    const [description, message] = [text(a.description), text(a.message)];
    const described =
      description && message
        ? ` The alert description is: ${description} | ${message}`
        : description || message
          ? ` The alert description is: ${description || message}`
          : ' The alert has no description.';
    const runbook = text(a.runbook_url);
    let details = `${summary}${described} ${runbook || '<alert does not have a runbook_url annotation>'}`;
    const budget = `Namespace=${text(labels.namespace)}, PodDisruptionBudget=${text(labels.poddisruptionbudget)}. `;
    let why: string;
    if (severity === 'critical') {
      if (name === PDB_LIMIT) details = budget + details;
      why = 'suggesting significant cluster issues worth investigating';
    } else if (name === PDB_AT_LIMIT) {
      details = budget + details;
      why = 'which might slow node drains';
    } else if ([...PULL_WAITING_ALERTS, ...NODE_ALERTS, ...VIRT_ALERTS].includes(name))
      why = 'which may slow workload redistribution during rolling node updates';
    else if (labels.openShiftUpdatePrecheck === 'true')
      why = 'suggesting issues worth investigating before updating the cluster';
    else continue;
    const condition: Condition = {
      type: 'Applies',
      status: 'True',
      reason: `Alert:${state}`,
      message: `${severity} alert ${name} ${state}, ${why}. ${details}`,
      lastTransitionTime: validTime(alert.activeAt),
    };
    const known = risks.get(name);
    if (!known) {
      risks.set(name, {
        name,
        message: summary,
        url: runbook || RUNBOOK_NOT_FOUND,
        matchingRules: [{ type: 'Always' }],
        applies: condition,
      });
      continue;
    }
    // One alert name may fire for every pod: the messages joined stop short of the condition's bound.
    const joined = `${known.applies.message}; ${condition.message}`;
    if (joined.length > MAX_JOINED) left.set(name, (left.get(name) ?? 0) + 1);
    known.applies = {
      ...known.applies,
      message: joined.length > MAX_JOINED ? known.applies.message : joined,
      lastTransitionTime:
        condition.lastTransitionTime < known.applies.lastTransitionTime
          ? condition.lastTransitionTime
          : known.applies.lastTransitionTime,
    };
  }
  for (const [name, more] of left) {
    const risk = risks.get(name)!;
    risk.applies = { ...risk.applies, message: `${risk.applies.message}; and ${more} more alerts ${name}` };
  }
  return [...risks.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** An alert's activeAt as a Kubernetes time (seconds, Z); the epoch when it has none, a malformed one or one past year 9999. */
function validTime(at: unknown): string {
  const ms = typeof at === 'string' ? Date.parse(at) : NaN;
  const inRange = Number.isFinite(ms) && ms >= 0 && ms < Date.UTC(10_000, 0, 1);
  return new Date(inRange ? Math.floor(ms / 1000) * 1000 : 0).toISOString().replace('.000Z', 'Z');
}

/** How long the alerts last read stand in for alerts Prometheus does not give. */
export const STALE_ALERTS_MS = 10 * 60_000;

/**
 * The alert source. When the alerts cannot be read, those last read stand for a while (the CVO's
 * AlertGetter: "using stale cache instead"), then `AlertUnknown`, a risk of every update, says the alerts are
 * not known: a Prometheus that stops answering, or answers too much, cannot leave updates recommended on
 * alerts read long ago.
 */
export function alertSource(access: PrometheusAccess, now: () => number = Date.now): RiskSource {
  let last: { alerts: Alert[]; at: number } | undefined;
  return {
    name: ALERT_SOURCE,
    async risks(versions) {
      let problem: string | undefined;
      try {
        last = { alerts: await fetchAlerts(access), at: now() };
      } catch (err) {
        const why = `failed to get alerts from ${access.url}: ${(err as Error).message}`;
        if (!last || now() - last.at > STALE_ALERTS_MS) {
          const message = `Failed to read the cluster's alerts to check for update risks: ${why}`;
          return unknownRisk(ALERT_SOURCE, message, RUNBOOK_NOT_FOUND, versions, why);
        }
        problem = `${why}; using the alerts read ${Math.round((now() - last.at) / 1000)} s ago`;
      }
      const risks = alertRisks(last.alerts);
      return { risks, versions: forVersions(risks, versions), ...(problem && { problem }) };
    },
  };
}
