// What `adm upgrade recommend` prints, laid out as `oc adm upgrade recommend` lays it out: the newest two
// updates of each minor version with their issues, all of them with --show-outdated-releases, Upgradeable=False
// as a risk of every later minor, the precheck's findings, and --version with --accept deciding the exit.
// (The command against a cluster with a real Prometheus is in test/e2e/agent.test.ts.)
import { describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../../../src/agent/clusterVersion.js';
import type { Condition } from '../../../../src/agent/conditions.js';
import { checkRecommendOptions, recommendReport } from '../../../../src/cli/adm/recommend.js';
import { findingsOf, type Finding } from '../../../../src/cli/adm/recommend/alerts.js';

const img = (v: string): string => `quay.example/ocp/release@sha256:${Buffer.from(v).toString('hex').padEnd(64, '0')}`;
const rel = (v: string) => ({ version: v, image: img(v), url: `https://errata.example/${v}` });
const cond = (type: string, status: string, reason = '', message = ''): Condition => ({
  type,
  status: status as Condition['status'],
  lastTransitionTime: '2026-01-01T00:00:00Z',
  reason,
  message,
});
const risky = (v: string, status: string, reason: string, message: string) => ({
  release: rel(v),
  risks: [{ name: reason, url: `https://issues.example/${reason}`, message, matchingRules: [{ type: 'Always' }] }],
  conditions: [cond('Recommended', status, reason, message)],
});

function clusterVersion(status: Partial<ClusterVersion['status']> = {}): ClusterVersion {
  return {
    metadata: {},
    spec: { clusterID: '00000000-0000-4000-8000-000000000000', channel: 'stable-4.17' },
    status: {
      desired: { ...rel('4.16.3'), channels: ['fast-4.16', 'stable-4.16', 'stable-4.17'] },
      availableUpdates: ['4.16.4', '4.16.6', '4.17.1', '4.17.2'].map(rel),
      conditionalUpdates: [
        risky('4.16.5', 'False', 'OnAWS', 'AWS hurts. https://issues.example/OnAWS'),
        risky('4.16.6', 'True', 'NotExposedToRisks', 'none apply'),
        risky('4.16.7', 'Unknown', 'EvaluationFailed', 'Could not evaluate exposure to update risk Slow'),
      ],
      conditions: [
        cond('Failing', 'False'),
        cond('Progressing', 'False', '', 'Cluster version is 4.16.3'),
        cond('RetrievedUpdates', 'True'),
      ],
      ...status,
    },
  };
}

describe('adm upgrade recommend, as oc lays it out', () => {
  it('lists the newest two updates of each minor version, newest minor first, with their issues', () => {
    const r = recommendReport(clusterVersion(), {}, undefined);
    expect(r.err).toBe('');
    expect(r.out).toBe(
      [
        'Upstream update service is unset, so the cluster will use an appropriate default.',
        'Channel: stable-4.17 (available channels: fast-4.16, stable-4.16, stable-4.17)',
        '',
        'Updates to 4.17:',
        '  VERSION     ISSUES',
        '  4.17.2      no known issues relevant to this cluster',
        '  4.17.1      no known issues relevant to this cluster',
        '',
        'Updates to 4.16:',
        '',
        '  Version: 4.16.7',
        `  Image: ${img('4.16.7')}`,
        '  Reason: EvaluationFailed',
        '  Message: Could not evaluate exposure to update risk Slow',
        '',
        '  VERSION     ISSUES',
        '  4.16.6      no known issues relevant to this cluster',
        // oc leaves a line before the next not-recommended update, which here is where the list stops.
        '',
        "And 2 older 4.16 updates you can see with '--show-outdated-releases' or '--version VERSION'.",
        '',
      ].join('\n'),
    );
    const all = recommendReport(clusterVersion(), { showOutdatedReleases: true }, undefined).out;
    expect(all).toContain(
      [
        'Updates to 4.16:',
        '  VERSION     ISSUES',
        '  4.16.7      EvaluationFailed',
        '  4.16.6      no known issues relevant to this cluster',
        '  4.16.5      OnAWS',
        '  4.16.4      no known issues relevant to this cluster',
        '',
      ].join('\n'),
    );
  });

  it('makes Upgradeable=False a risk of every update to a later minor version', () => {
    const blocked = cond('Upgradeable', 'False', 'AdminAckRequired', 'Acknowledge the API removals first.');
    const cv = clusterVersion({ conditions: [...clusterVersion().status.conditions!, blocked] });
    const r = recommendReport(cv, { showOutdatedReleases: true }, undefined);
    expect(r.out).toContain('  4.17.2      AdminAckRequired\n  4.17.1      AdminAckRequired\n');
    expect(r.out).toContain('  4.16.6      no known issues relevant to this cluster\n');
    const one = recommendReport(cv, { version: '4.17.2' }, undefined);
    expect(one.out).toMatch(
      /\nUpdate to 4\.17\.2 Recommended=False:\nImage: \S+\nRelease URL: https:\/\/errata\.example\/4\.17\.2\nReason: AdminAckRequired\nMessage: Acknowledge the API removals first\.\n$/,
    );
    expect(one.failure).toBe(
      'issues that apply to this cluster but which were not included in --accept: ConditionalUpdateRisk',
    );
  });

  it('--version: the target in context; an issue not accepted fails, an accepted one is named', () => {
    const cv = clusterVersion({
      conditions: [
        cond('Failing', 'False'),
        cond('Progressing', 'True', '', 'Working towards 4.16.4: 10 of 600 done (1% complete)'),
        cond('RetrievedUpdates', 'True'),
      ],
    });
    const r = recommendReport(cv, { version: '4.16.6' }, undefined);
    expect(r.out).toBe(
      [
        'info: An update is in progress.  You may wish to let this update complete before requesting a new update.',
        '  Working towards 4.16.4: 10 of 600 done (1% complete)',
        '',
        'Upstream update service is unset, so the cluster will use an appropriate default.',
        'Channel: stable-4.17 (available channels: fast-4.16, stable-4.16, stable-4.17)',
        '',
        'Update to 4.16.6 has no known issues relevant to this cluster.',
        `Image: ${img('4.16.6')}`,
        'Release URL: https://errata.example/4.16.6',
        '',
      ].join('\n'),
    );
    expect(r.failure).toBe('issues that apply to this cluster but which were not included in --accept: Progressing');
    const accepted = recommendReport(cv, { version: '4.16.6', accept: ['Progressing'] }, undefined);
    expect(accepted.failure).toBeUndefined();
    expect(accepted.out).toMatch(/^accepted info: An update is in progress\./);
    expect(accepted.out).toMatch(
      /\nUpdate to 4\.16\.6 has no known issues relevant to this cluster other than the accepted Progressing\.\n$/,
    );
    expect(recommendReport(cv, { version: '4.18.1' }, undefined).failure).toBe(
      'no updates to 4.18 available, so cannot display context for the requested release 4.18.1',
    );
    expect(recommendReport(cv, { version: '4.16.9' }, undefined).failure).toBe(
      'no update to 4.16.9 available, so cannot display context for the requested release',
    );
    expect(() => checkRecommendOptions({ version: '4.16.6', showOutdatedReleases: true })).toThrow(
      'when --version is set, --show-outdated-releases is unnecessary',
    );
  });

  it("shows the precheck's findings: those without concern in one line, each concern in full", () => {
    const findings: Finding[] = [
      {
        type: 'recommended/CriticalAlerts/ClusterOperatorDown/0',
        status: 'False',
        reason: 'Alert:firing',
        message:
          'critical alert ClusterOperatorDown firing, suggesting significant cluster issues worth investigating. x',
        acceptance: 'CriticalAlerts',
      },
      { type: 'recommended/NodeAlerts', status: 'True', reason: 'AsExpected', message: '', acceptance: 'NodeAlerts' },
      {
        type: 'recommended/PodImagePullAlerts',
        status: 'True',
        reason: 'AsExpected',
        message: '',
        acceptance: 'PodImagePullAlerts',
      },
    ];
    const r = recommendReport(clusterVersion(), { version: '4.16.6' }, { findings });
    expect(r.out).toMatch(
      /^The following conditions found no cause for concern in updating this cluster to later releases: recommended\/NodeAlerts \(AsExpected\), recommended\/PodImagePullAlerts \(AsExpected\)\n\nThe following conditions found cause for concern in updating this cluster to later releases: recommended\/CriticalAlerts\/ClusterOperatorDown\/0\n\nrecommended\/CriticalAlerts\/ClusterOperatorDown\/0=False:\n\n {2}Reason: Alert:firing\n {2}Message: critical alert ClusterOperatorDown firing, suggesting significant cluster issues worth investigating\. x\n\nUpstream/,
    );
    expect(r.failure).toBe('issues that apply to this cluster but which were not included in --accept: CriticalAlerts');
    const failed = recommendReport(
      clusterVersion(),
      {},
      { findings: [], error: 'failed to get alerts from http://x: refused' },
    );
    expect(failed.out).toMatch(
      /^Failed to check for at least some preconditions: failed to get alerts from http:\/\/x: refused\n/,
    );
  });

  it('says when there are no updates, and warns that updates cannot be refreshed', () => {
    const r = recommendReport(
      clusterVersion({
        availableUpdates: null,
        conditionalUpdates: [],
        conditions: [cond('Failing', 'False'), cond('RetrievedUpdates', 'False', 'VersionNotFound', 'not in channel')],
      }),
      {},
      undefined,
    );
    expect(r.out).toMatch(
      /\nNo updates available\. You may still upgrade to a specific release image with --to-image or wait for new updates to be available\.\n$/,
    );
    expect(r.err).toBe(
      'warning: Cannot refresh available updates:\n  Reason: VersionNotFound\n  Message: not in channel\n\n',
    );
  });

  it('makes a finding of each alert that matters for an update, accepted by its name', () => {
    const findings = findingsOf([
      {
        labels: { alertname: 'ClusterOperatorDown', severity: 'critical' },
        annotations: { summary: 'Cluster operator has not been available for 10 minutes', description: 'down' },
        state: 'firing',
      },
      { labels: { alertname: 'KubeNodeNotReady', severity: 'warning' }, state: 'pending' },
      { labels: { alertname: 'Watchdog', severity: 'none' }, state: 'firing' },
      {
        labels: {
          alertname: 'PodDisruptionBudgetAtLimit',
          severity: 'warning',
          namespace: 'openshift-monitoring',
          poddisruptionbudget: 'prometheus-k8s',
        },
        annotations: { summary: 'At the limit.', description: 'No more disruption.', message: 'Really.' },
        state: 'firing',
      },
      { labels: { alertname: 'MyGate', severity: 'info', openShiftUpdatePrecheck: 'true' }, state: 'firing' },
    ]);
    expect(findings).toEqual([
      {
        type: 'recommended/CriticalAlerts/ClusterOperatorDown/0',
        status: 'False',
        reason: 'Alert:firing',
        message:
          'critical alert ClusterOperatorDown firing, suggesting significant cluster issues worth investigating. Cluster operator has not been available for 10 minutes. The alert description is: down <alert does not have a runbook_url annotation>',
        acceptance: 'ClusterOperatorDown',
      },
      {
        type: 'recommended/PodDisruptionBudgetAlerts/PodDisruptionBudgetAtLimit/1',
        status: 'False',
        reason: 'Alert:firing',
        message:
          'warning alert PodDisruptionBudgetAtLimit firing, which might slow node drains. Namespace=openshift-monitoring, PodDisruptionBudget=prometheus-k8s. At the limit. The alert description is: No more disruption. | Really. <alert does not have a runbook_url annotation>',
        acceptance: 'PodDisruptionBudgetAtLimit',
      },
      {
        type: 'recommended/UpdatePrecheckAlerts/MyGate/2',
        status: 'False',
        reason: 'Alert:firing',
        message:
          'info alert MyGate firing, suggesting issues worth investigating before updating the cluster. MyGate. The alert has no description. <alert does not have a runbook_url annotation>',
        acceptance: 'MyGate',
      },
      {
        type: 'recommended/PodImagePullAlerts',
        status: 'True',
        reason: 'AsExpected',
        message: 'No Pod container image pull alerts firing.',
        acceptance: 'PodImagePullAlerts',
      },
      // A pending alert is not yet a finding.
      {
        type: 'recommended/NodeAlerts',
        status: 'True',
        reason: 'AsExpected',
        message: 'No Node alerts firing.',
        acceptance: 'NodeAlerts',
      },
    ]);
    const r = recommendReport(clusterVersion(), { version: '4.16.6', accept: ['ClusterOperatorDown'] }, { findings });
    expect(r.out).toMatch(
      /^The following conditions found no cause for concern in updating this cluster to later releases: recommended\/NodeAlerts \(AsExpected\), recommended\/PodImagePullAlerts \(AsExpected\)\n\nThe following conditions found cause for concern in updating this cluster to later releases, but were explicitly accepted via --accept: recommended\/CriticalAlerts\/ClusterOperatorDown\/0\n\nThe following conditions found cause for concern in updating this cluster to later releases: recommended\/PodDisruptionBudgetAlerts\/PodDisruptionBudgetAtLimit\/1, recommended\/UpdatePrecheckAlerts\/MyGate\/2\n\n/,
    );
    expect(r.failure).toBe(
      'issues that apply to this cluster but which were not included in --accept: MyGate,PodDisruptionBudgetAtLimit',
    );
  });

  it('names the risks the cluster accepted when they are what makes an update recommended', () => {
    const applies = (name: string, status: string) => ({
      name,
      url: `https://issues.example/${name}`,
      message: `${name} hurts.`,
      matchingRules: [{ type: 'Always' }],
      conditions: [cond('Applies', status, status === 'True' ? 'Match' : 'NotMatch')],
    });
    const cv = clusterVersion({
      conditionalUpdateRisks: [applies('RiskA', 'True'), applies('RiskB', 'True'), applies('RiskC', 'False')],
      conditionalUpdates: [
        {
          release: rel('4.16.8'),
          riskNames: ['RiskA', 'RiskC'],
          risks: [applies('RiskA', 'True'), applies('RiskC', 'False')],
          conditions: [cond('Recommended', 'True', 'AllExposedRisksAccepted', 'accepted')],
        },
      ],
    });
    cv.spec.desiredUpdate = { acceptRisks: [{ name: 'RiskC' }, { name: 'RiskB' }, { name: 'RiskA' }] };
    const r = recommendReport(cv, { version: '4.16.8' }, undefined);
    expect(r.failure).toBeUndefined();
    // The accepted risks that apply to the cluster (RiskC does not), in name order, as oc lists them.
    expect(r.out).toContain(
      'Update to 4.16.8 has no known issues relevant to this cluster.\nImage: ' +
        img('4.16.8') +
        '\nRelease URL: https://errata.example/4.16.8\nUpdate to 4.16.8 has no known issues relevant to this cluster other than the accepted RiskA,RiskB.\n',
    );
  });
});
