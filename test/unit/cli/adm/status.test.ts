// `adm upgrade status` on a cluster in trouble, laid out as `oc adm upgrade status` lays it out: an update
// started over an incomplete one, operators updating, unavailable and degraded, a degraded node, a node not
// ready, a paused pool, more nodes than a pool shows, and the health insights worst first. (The update as
// the mock cluster runs it is in test/service/cli/adm/status.test.ts.)
import { describe, expect, it } from 'vitest';
import type { ClusterVersion, HistoryEntry } from '../../../../src/agent/clusterVersion.js';
import type { Condition } from '../../../../src/agent/conditions.js';
import { statusReport } from '../../../../src/cli/adm/status.js';
import type { ClusterOperator, Node, Pool, StatusInput } from '../../../../src/cli/adm/status/cluster.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const ago = (minutes: number): string => new Date(NOW - minutes * 60_000).toISOString().replace('.000Z', 'Z');
const cond = (type: string, status: string, minutes: number, reason = '', message = ''): Condition => ({
  type,
  status: status as Condition['status'],
  lastTransitionTime: ago(minutes),
  reason,
  message,
});
const entry = (version: string, state: HistoryEntry['state'], started: number, completed?: number): HistoryEntry => ({
  state,
  version,
  image: `quay.example/ocp/release@sha256:${version.replace(/\D/g, '').padEnd(64, '0')}`,
  startedTime: ago(started),
  completionTime: completed === undefined ? null : ago(completed),
  verified: true,
});

const cv: ClusterVersion = {
  metadata: {},
  spec: { clusterID: '00000000-0000-4000-8000-000000000000' },
  status: {
    desired: { version: '4.16.5', image: 'x' },
    history: [
      entry('4.16.5', 'Partial', 30),
      entry('4.16.2', 'Partial', 120, 30),
      entry('4.15.9', 'Completed', 300, 250),
      entry('4.15.0', 'Completed', 900, 850),
    ],
    conditions: [
      cond('Progressing', 'True', 30, '', 'Working towards 4.16.5: 120 of 800 done (15% complete)'),
      cond('Failing', 'True', 10, 'ClusterOperatorDegraded', 'Cluster operator dns is degraded'),
    ],
  },
};

const operator = (name: string, version: string, conditions: Condition[]): ClusterOperator => ({
  metadata: { name, annotations: { 'include.release.openshift.io/self-managed-high-availability': 'true' } },
  status: { versions: [{ name: 'operator', version }], conditions },
});
const healthy = (progressing: Condition): Condition[] => [
  cond('Available', 'True', 600),
  cond('Degraded', 'False', 600),
  progressing,
];
const operators = [
  operator('etcd', '4.16.5', healthy(cond('Progressing', 'False', 20))),
  operator('kube-apiserver', '4.16.2', [
    ...healthy(cond('Progressing', 'True', 3, 'NodeInstaller', 'NodeInstallerProgressing: 1 node is at revision 7')),
  ]),
  operator('console', '4.16.2', [
    cond('Available', 'False', 25, 'DeploymentUnavailable', 'no pods available'),
    cond('Degraded', 'False', 600),
    cond('Progressing', 'False', 25),
  ]),
  operator('dns', '4.16.2', [
    cond('Available', 'True', 600),
    cond('Degraded', 'True', 8, 'DNSDegraded', 'one of three pods crashlooping'),
    cond('Progressing', 'False', 8),
  ]),
];

const role = (r: string): Pool['spec'] => ({ nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${r}`]: '' } } });
const pools: Pool[] = [
  { metadata: { name: 'worker' }, spec: role('worker') },
  { metadata: { name: 'master' }, spec: role('master') },
  { metadata: { name: 'infra' }, spec: { ...role('infra'), paused: true } },
];
const node = (
  name: string,
  roles: string[],
  configs: [string, string],
  state: string,
  extra: Partial<Node> & { reason?: string; ready?: Condition } = {},
): Node => ({
  metadata: {
    name,
    labels: Object.fromEntries(roles.map((r) => [`node-role.kubernetes.io/${r}`, ''])),
    annotations: {
      'machineconfiguration.openshift.io/currentConfig': configs[0],
      'machineconfiguration.openshift.io/desiredConfig': configs[1],
      'machineconfiguration.openshift.io/state': state,
      ...(extra.reason && { 'machineconfiguration.openshift.io/reason': extra.reason }),
    },
  },
  spec: extra.spec ?? {},
  status: { conditions: [extra.ready ?? cond('Ready', 'True', 600, 'KubeletReady')] },
});
const nodes: Node[] = [
  node('master-0', ['master'], ['rm-new', 'rm-new'], 'Done'),
  node('master-1', ['master'], ['rm-old', 'rm-new'], 'Working'),
  node('master-2', ['master'], ['rm-old', 'rm-old'], 'Done'),
  node('worker-0', ['worker'], ['rw-old', 'rw-new'], 'Degraded', {
    reason: 'failed to drain node: worker-0 after 1 hour',
  }),
  node('worker-1', ['worker'], ['rw-old', 'rw-old'], 'Done', {
    ready: cond('Ready', 'False', 20, 'KubeletNotReady', 'PLEG is not healthy'),
  }),
  ...Array.from({ length: 10 }, (_, i) => node(`worker-${i + 2}`, ['worker'], ['rw-old', 'rw-old'], 'Done')),
  node('infra-0', ['infra', 'worker'], ['ri-old', 'ri-old'], 'Done'),
];
const versions: Record<string, string> = {
  'rm-new': '4.16.5',
  'rw-new': '4.16.5',
  'rm-old': '4.16.2',
  'rw-old': '4.16.2',
  'ri-old': '4.16.2',
};
const input: StatusInput = {
  cv,
  operators,
  pools,
  nodes,
  configVersion: (name) => (name ? versions[name] : undefined),
  now: NOW,
};

describe('adm upgrade status, as oc lays it out', () => {
  it('prints the control plane, the pools and the health of an update in trouble', () => {
    expect(statusReport(input, 'none')).toBe(
      [
        '= Control Plane =',
        'Assessment:      Progressing',
        'Target Version:  4.16.5 (from incomplete 4.16.2)',
        'Updating:        kube-apiserver',
        'Completion:      25% (1 operators updated, 1 updating, 2 waiting)',
        'Duration:        30m (Est. Time Remaining: 1h34m)',
        'Operator Health: 2 Healthy, 1 Unavailable, 1 Available but degraded',
        '',
        'Control Plane Nodes',
        'NAME       ASSESSMENT    PHASE      VERSION   EST   MESSAGE',
        'master-1   Progressing   Updating   4.16.2    +5m   ',
        'master-2   Outdated      Pending    4.16.2    ?     ',
        'master-0   Completed     Updated    4.16.5    -     ',
        '',
        '= Worker Upgrade =',
        '',
        'WORKER POOL   ASSESSMENT   COMPLETION   STATUS',
        'worker        Degraded     0% (0/12)    11 Available, 0 Progressing, 0 Draining, 1 Degraded',
        'infra         Excluded     0% (0/1)     1 Available, 0 Progressing, 0 Draining, 1 Excluded',
        '',
        'Worker Pool Nodes: worker',
        'NAME        ASSESSMENT    PHASE      VERSION   EST   MESSAGE',
        'worker-0    Degraded      Updating   4.16.2    ?     failed to drain node: <node> after 1 hour',
        'worker-1    Unavailable   Pending    4.16.2    ?     Not ready',
        'worker-10   Outdated      Pending    4.16.2    ?     ',
        'worker-11   Outdated      Pending    4.16.2    ?     ',
        'worker-2    Outdated      Pending    4.16.2    ?     ',
        'worker-3    Outdated      Pending    4.16.2    ?     ',
        'worker-4    Outdated      Pending    4.16.2    ?     ',
        'worker-5    Outdated      Pending    4.16.2    ?     ',
        'worker-6    Outdated      Pending    4.16.2    ?     ',
        'worker-7    Outdated      Pending    4.16.2    ?     ',
        '...',
        'Omitted additional 2 Total, 0 Completed, 2 Available, 0 Progressing, 2 Outdated, 0 Draining, 0 Excluded, and 0 Degraded nodes.',
        'Pass along --details=nodes to see all information.',
        '',
        'Worker Pool Nodes: infra',
        'NAME      ASSESSMENT   PHASE    VERSION   EST   MESSAGE',
        'infra-0   Excluded     Paused   4.16.2    -     ',
        '',
        '= Update Health =',
        'SINCE   LEVEL     IMPACT             MESSAGE',
        '25m     Error     API Availability   Cluster Operator console is unavailable (DeploymentUnavailable)',
        '-       Error     Update Stalled     Node worker-0 is degraded',
        '8m      Warning   API Availability   Cluster Operator dns is degraded (DNSDegraded)',
        '10m     Warning   Update Stalled     Cluster Version version is failing to proceed with the update (ClusterOperatorDegraded)',
        '20m     Warning   Update Speed       Node worker-1 is not ready',
        '30m     Warning   None               Previous update to 4.16.2 never completed, last complete update was 4.15.9',
        "-       Warning   Update Stalled     Outdated nodes in a paused pool 'infra' will not be updated",
        '',
        'Run with --details=health for additional description and links to related online documentation',
        '',
      ].join('\n'),
    );
  });

  it('shows every node, the updating operators and each insight in full with --details=all', () => {
    const all = statusReport(input, 'all');
    expect(all).toContain(
      '\nUpdating Cluster Operators\nNAME             SINCE   REASON          MESSAGE\nkube-apiserver   3m      NodeInstaller   NodeInstallerProgressing: 1 node is at revision 7\n',
    );
    expect(all).toContain('\nworker-9    Outdated      Pending    4.16.2    ?     \n');
    expect(all).not.toContain('Omitted additional');
    expect(all).toContain(
      '= Update Health =\nMessage: Cluster Operator console is unavailable (DeploymentUnavailable)\n  Since:       25m\n  Level:       Error\n  Impact:      API Availability\n  Reference:   https://github.com/openshift/runbooks/blob/master/alerts/cluster-monitoring-operator/ClusterOperatorDown.md\n  Description: no pods available\n\nMessage: Node worker-0 is degraded\n',
    );
  });

  it('says the cluster is not updating when nothing is under way, and refuses a cluster without operators', () => {
    const settled: ClusterVersion = {
      ...cv,
      status: {
        ...cv.status,
        history: [entry('4.16.5', 'Completed', 30, 5), ...cv.status.history!.slice(1)],
        conditions: [cond('Progressing', 'False', 5, '', 'Cluster version is 4.16.5')],
      },
    };
    const updatedNodes = nodes.map((n) => ({
      ...n,
      metadata: {
        ...n.metadata,
        annotations: {
          ...n.metadata.annotations,
          'machineconfiguration.openshift.io/currentConfig': 'rw-new',
          'machineconfiguration.openshift.io/desiredConfig': 'rw-new',
          'machineconfiguration.openshift.io/state': 'Done',
        },
      },
      status: { conditions: [cond('Ready', 'True', 600)] },
    }));
    const operatorsDone = operators.map((o) =>
      operator(o.metadata.name, '4.16.5', healthy(cond('Progressing', 'False', 6))),
    );
    const done = { ...input, cv: settled, operators: operatorsDone };
    expect(statusReport({ ...done, nodes: updatedNodes, pools: pools.slice(0, 2) }, 'none')).toBe(
      'The cluster is not updating.\n',
    );
    // Workers still rolling after the control plane finished: still an update to show.
    expect(statusReport(done, 'none')).toMatch(
      /^= Control Plane =\nUpdate to 4\.16\.5 successfully completed at 2026-06-01T11:55:00Z \(duration: 25m\)\n\nControl Plane Nodes\n/,
    );
    expect(() => statusReport({ ...input, operators: [] }, 'none')).toThrow(
      'no cluster operator information available - you must be connected to an OpenShift version 4 server',
    );
  });
});
