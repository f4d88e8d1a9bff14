// The node pools of `adm upgrade status`, assessed as `oc adm upgrade status` assesses them from what the
// Machine Config Daemon writes on each node: its phase (Pending, Draining, Updating, Rebooting, Paused,
// Updated), its assessment (Outdated, Progressing, Completed, Excluded, Unavailable, Degraded) with an
// estimate of the time it still needs, and each pool's completion.
import type { ClusterVersion } from '../../../agent/clusterVersion.js';
import { KUBE_LABEL } from '../../../cluster/labels.js';
import { alignColumns } from '../../table.js';
import type { LabelSelector, Node, Pool, StatusInput } from './cluster.js';
import type { Insight } from './insight.js';

const PHASES = ['Draining', 'Updating', 'Rebooting', 'Paused', 'Pending', 'Updated'] as const;
const ASSESSMENTS = ['Degraded', 'Unavailable', 'Progressing', 'Excluded', 'Outdated', 'Completed'] as const;
type Phase = (typeof PHASES)[number];
type NodeAssessment = (typeof ASSESSMENTS)[number];

const DESIRED_DRAIN = 'machineconfiguration.openshift.io/desiredDrain';
const APPLIED_DRAIN = 'machineconfiguration.openshift.io/lastAppliedDrain';
const MCD_REASON = 'machineconfiguration.openshift.io/reason';
const MCO_DOCS =
  'https://docs.openshift.com/container-platform/latest/post_installation_configuration/machine-configuration-tasks.html#understanding-the-machine-config-operator';

export interface NodeRow {
  name: string;
  assessment: NodeAssessment;
  phase: Phase;
  version: string;
  estimate: string;
  message: string;
  unavailable: boolean;
  degraded: boolean;
  updating: boolean;
  updated: boolean;
}

export interface PoolData {
  name: string;
  assessment: string;
  completion: number;
  total: number;
  available: number;
  progressing: number;
  outdated: number;
  draining: number;
  excluded: number;
  degraded: number;
  nodes: NodeRow[];
}

function matches(selector: LabelSelector | undefined, labels: Record<string, string> = {}): boolean {
  if (!selector) return false;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpressions = (selector.matchExpressions ?? []).every((e) => {
    const has = e.key in labels;
    if (e.operator === 'In') return has && (e.values ?? []).includes(labels[e.key]!);
    if (e.operator === 'NotIn') return !has || !(e.values ?? []).includes(labels[e.key]!);
    if (e.operator === 'Exists') return has;
    if (e.operator === 'DoesNotExist') return !has;
    return false;
  });
  return byLabels && byExpressions;
}

/** The pool a node belongs to, as the MCO decides: master first, then a custom pool, then worker. */
function poolOf(pools: Pool[], node: Node): string | undefined {
  const labels = node.metadata.labels;
  const named = (n: string): Pool | undefined => pools.find((p) => p.metadata.name === n);
  if (matches(named('master')?.spec?.nodeSelector, labels)) return 'master';
  const custom = pools.find(
    (p) => !['master', 'worker'].includes(p.metadata.name) && matches(p.spec?.nodeSelector, labels),
  );
  if (custom) return custom.metadata.name;
  if (matches(named('worker')?.spec?.nodeSelector, labels)) return 'worker';
  return undefined;
}

/** Why a node is unavailable, in the MCO's words; empty when it is available. */
function unavailability(node: Node): Array<{ reason: string; message: string; since: number }> {
  const out: Array<{ reason: string; message: string; since: number }> = [];
  const a = node.metadata.annotations ?? {};
  for (const c of node.status?.conditions ?? []) {
    const since = Date.parse(c.lastTransitionTime);
    if (c.type === 'Ready' && c.status !== 'True') out.push({ reason: 'Not ready', message: c.message, since });
    if (c.type === 'DiskPressure' && c.status !== 'False')
      out.push({ reason: 'Disk pressure', message: c.message, since });
    if (c.type === 'NetworkUnavailable' && c.status !== 'False')
      out.push({ reason: 'Network unavailable', message: c.message, since });
  }
  if (node.spec?.unschedulable) out.push({ reason: 'Node is marked unschedulable', message: '', since: NaN });
  if (out.length) return out;
  const current = a[KUBE_LABEL.currentConfig];
  const desired = a[KUBE_LABEL.desiredConfig];
  const state = a[KUBE_LABEL.mcdState];
  const done = !!current && current === desired && state === 'Done';
  if (done || state === 'Degraded' || state === 'Unreconcilable') return [];
  return [{ reason: 'Machine Config Daemon is processing the node', message: '', since: NaN }];
}

function phaseOf(pool: Pool, node: Node, updating: boolean, updated: boolean): Phase {
  const a = node.metadata.annotations ?? {};
  if (updating) {
    const desiredDrain = a[DESIRED_DRAIN];
    const appliedDrain = a[APPLIED_DRAIN];
    // A drain asked for and not yet applied; or the daemon not yet at work on a node it is to update.
    const draining =
      !!desiredDrain &&
      !!appliedDrain &&
      ((desiredDrain !== appliedDrain && desiredDrain.split('-')[0] === 'drain') || a[KUBE_LABEL.mcdState] === 'Done');
    if (draining) return 'Draining';
    const state = a[KUBE_LABEL.mcdState];
    return state === 'Rebooting' ? 'Rebooting' : state === 'Done' ? 'Updated' : 'Updating';
  }
  if (updated) return 'Updated';
  return pool.spec?.paused ? 'Paused' : 'Pending';
}

const ESTIMATE: Record<Phase, [NodeAssessment, string]> = {
  Paused: ['Excluded', '-'],
  Pending: ['Outdated', '?'],
  Draining: ['Progressing', '+10m'],
  Updating: ['Progressing', '+5m'],
  Rebooting: ['Progressing', '+5m'],
  Updated: ['Completed', '-'],
};

function assessNodes(
  cv: ClusterVersion,
  pool: Pool,
  nodes: Node[],
  version: StatusInput['configVersion'],
  now: number,
): { rows: NodeRow[]; insights: Insight[] } {
  const newest = cv.status.history?.[0]?.version;
  const insights: Insight[] = [];
  const rows = nodes.map((node): NodeRow => {
    const a = node.metadata.annotations ?? {};
    const name = node.metadata.name;
    const desiredConfig = a[KUBE_LABEL.desiredConfig];
    const current = version(a[KUBE_LABEL.currentConfig]);
    const desired = version(desiredConfig);
    const why = unavailability(node);
    const unavailable = why.length > 0;
    const degraded = !!desiredConfig && ['Degraded', 'Unreconcilable'].includes(a[KUBE_LABEL.mcdState] ?? '');
    const updated =
      current !== undefined && current === newest && (!desiredConfig || a[KUBE_LABEL.currentConfig] === desiredConfig);
    const updating = !updated && current !== undefined && desired !== undefined && desired === newest;
    const phase = phaseOf(pool, node, updating, updated);
    let [assessment, estimate] = ESTIMATE[phase];
    let message = '';
    if (unavailable && !updating) {
      assessment = 'Unavailable';
      message = why.map((w) => w.reason).join(' | ');
      estimate = updated ? '-' : '?';
      const since = why.map((w) => w.since).filter((t) => Number.isFinite(t));
      // Unschedulable or being processed is expected; not ready for under five minutes too.
      const serious = why.some(
        (w) =>
          !['Node is marked unschedulable', 'Machine Config Daemon is processing the node'].includes(w.reason) &&
          !(w.reason === 'Not ready' && now - w.since < 5 * 60_000) &&
          !(['Disk pressure', 'Network unavailable'].includes(w.reason) && now - w.since < 60_000),
      );
      if (serious)
        insights.push({
          startedAt: since.length ? Math.min(...since) : undefined,
          level: 'Warning',
          impact: 'Update Speed',
          summary: why
            .map((w) =>
              w.reason === 'Not ready'
                ? `Node ${name} is not ready`
                : w.reason === 'Disk pressure'
                  ? `Node ${name} has disk pressure`
                  : w.reason === 'Network unavailable'
                    ? `Node ${name} has unavailable network`
                    : w.reason,
            )
            .join(' | '),
          description: why
            .map((w) =>
              w.reason === 'Not ready'
                ? `Node has a Ready!=True condition with Reason "Not ready" and message "${w.message}"`
                : w.reason,
            )
            .join(' | '),
          reference: MCO_DOCS,
        });
    }
    if (degraded) {
      assessment = 'Degraded';
      message = a[MCD_REASON] ?? '';
      estimate = updated ? '-' : '?';
      insights.push({
        level: 'Error',
        impact: 'Update Stalled',
        summary: `Node ${name} is degraded`,
        description: message,
        reference: MCO_DOCS,
      });
    }
    return {
      name,
      assessment,
      phase,
      version: current ?? '',
      estimate,
      message: name.length >= 8 ? message.split(name).join('<node>') : message,
      unavailable,
      degraded,
      updating,
      updated,
    };
  });
  rows.sort(
    (x, y) =>
      ASSESSMENTS.indexOf(x.assessment) - ASSESSMENTS.indexOf(y.assessment) ||
      PHASES.indexOf(x.phase) - PHASES.indexOf(y.phase) ||
      (x.name < y.name ? -1 : x.name > y.name ? 1 : 0),
  );
  return { rows, insights };
}

function assessPool(pool: Pool, rows: NodeRow[]): { data: PoolData; insights: Insight[] } {
  const d: PoolData = {
    name: pool.metadata.name,
    assessment: 'Progressing',
    completion: 0,
    total: rows.length,
    available: 0,
    progressing: 0,
    outdated: 0,
    draining: 0,
    excluded: 0,
    degraded: 0,
    nodes: rows,
  };
  let updated = 0;
  let pending = 0;
  for (const n of rows) {
    if (!n.unavailable) d.available++;
    if (n.degraded) d.degraded++;
    if (n.phase === 'Updated') updated++;
    else d.outdated++;
    if (n.phase === 'Paused') d.excluded++;
    if (n.phase === 'Pending') pending++;
    if (n.phase === 'Draining') d.draining++;
    if (['Draining', 'Updating', 'Rebooting'].includes(n.phase) && !n.degraded) d.progressing++;
  }
  if (updated === rows.length) d.assessment = 'Completed';
  else if (pending === rows.length) d.assessment = 'Pending';
  else if (d.degraded) d.assessment = 'Degraded';
  else if (d.excluded) d.assessment = 'Excluded';
  d.completion = rows.length ? (updated / rows.length) * 100 : 0;
  const insights: Insight[] =
    d.excluded && pool.spec?.paused
      ? [
          {
            level: 'Warning',
            impact: 'Update Stalled',
            summary: `Outdated nodes in a paused pool '${pool.metadata.name}' will not be updated`,
            description:
              'Pool is paused, which stops all changes to the nodes in the pool, including updates. The nodes will not be updated until the pool is unpaused by the administrator.',
            reference:
              'https://docs.openshift.com/container-platform/latest/support/troubleshooting/troubleshooting-operator-issues.html#troubleshooting-disabling-autoreboot-mco_troubleshooting-operator-issues',
          },
        ]
      : [];
  return { data: d, insights };
}

/** Every pool with its nodes, the master pool first; the insights they give. */
export function assessPools(input: StatusInput): { pools: PoolData[]; insights: Insight[] } {
  const insights: Insight[] = [];
  const members = new Map<string, Node[]>();
  for (const n of input.nodes) {
    const p = poolOf(input.pools, n);
    if (p) members.set(p, [...(members.get(p) ?? []), n]);
  }
  const ordered = [...input.pools].sort(
    (a, b) => Number(b.metadata.name === 'master') - Number(a.metadata.name === 'master'),
  );
  const pools = ordered.map((pool) => {
    const nodes = assessNodes(input.cv, pool, members.get(pool.metadata.name) ?? [], input.configVersion, input.now);
    const assessed = assessPool(pool, nodes.rows);
    insights.push(...nodes.insights, ...assessed.insights);
    return assessed.data;
  });
  return { pools, insights };
}

export function renderPoolTable(pools: PoolData[]): string {
  const rows = pools.map((p) => {
    if (!p.nodes.length) return [p.name, 'Empty', '', `${p.total} Total`];
    let status = `${p.available} Available, ${p.progressing} Progressing, ${p.draining} Draining`;
    if (p.excluded) status += `, ${p.excluded} Excluded`;
    if (p.degraded) status += `, ${p.degraded} Degraded`;
    return [p.name, p.assessment, `${Math.round(p.completion)}% (${p.total - p.outdated}/${p.total})`, status];
  });
  return `\n${alignColumns([['WORKER POOL', 'ASSESSMENT', 'COMPLETION', 'STATUS'], ...rows], { padding: 3 })}`;
}

/** A pool's nodes; at most ten when not detailed, those in trouble always, the rest summed up. */
export function renderPoolNodes(p: PoolData, detailed: boolean): string {
  if (!p.nodes.length) return '';
  let out: string;
  if (p.name === 'master') {
    if (p.completion === 100) return `\nAll control plane nodes successfully updated to ${p.nodes[0]!.version}\n`;
    out = '\nControl Plane Nodes\n';
  } else out = `\nWorker Pool Nodes: ${p.name}\n`;
  const omitted = { total: 0, completed: 0, available: 0, progressing: 0, outdated: 0, draining: 0, excluded: 0 };
  const rows: string[][] = [['NAME', 'ASSESSMENT', 'PHASE', 'VERSION', 'EST', 'MESSAGE']];
  p.nodes.forEach((n, i) => {
    if (!detailed && i >= 10 && !n.degraded && (!n.unavailable || n.updating)) {
      omitted.total++;
      if (n.updated) omitted.completed++;
      else omitted.outdated++;
      if (!n.unavailable) omitted.available++;
      if (n.phase === 'Draining') omitted.draining++;
      if (n.phase === 'Paused') omitted.excluded++;
      if (n.assessment === 'Progressing') omitted.progressing++;
      return;
    }
    rows.push([n.name, n.assessment, n.phase, n.version || '?', n.estimate, n.message]);
  });
  out += alignColumns(rows, { padding: 3 });
  if (omitted.total)
    out += `...\nOmitted additional ${omitted.total} Total, ${omitted.completed} Completed, ${omitted.available} Available, ${omitted.progressing} Progressing, ${omitted.outdated} Outdated, ${omitted.draining} Draining, ${omitted.excluded} Excluded, and 0 Degraded nodes.\nPass along --details=nodes to see all information.\n`;
  return out;
}
