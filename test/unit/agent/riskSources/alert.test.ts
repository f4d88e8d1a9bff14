// Firing alerts as risks, as pkg/risk/alert alertsToRisks makes them: which alerts count, their Applies
// condition's reason and message, several alerts of one name as one risk, and texts bounded.
import { describe, expect, it } from 'vitest';
import { alertRisks, type Alert } from '../../../../src/agent/riskSources/alert.js';

const alert = (name: string, extra: Partial<Alert> = {}, labels: Alert['labels'] = {}): Alert => ({
  labels: { alertname: name, severity: 'warning', ...labels },
  annotations: { summary: `${name} summary` },
  state: 'firing',
  activeAt: '2026-12-01T10:00:00.123Z',
  ...extra,
});

describe('alert risks', () => {
  it('words a critical budget alert as the CVO does, and takes the budget, pull, node, virt and precheck alerts', () => {
    const risks = alertRisks([
      alert(
        'PodDisruptionBudgetLimit',
        {
          annotations: {
            summary: 'summary',
            description: 'description',
            message: 'message',
            runbook_url: 'http://runbook.example.com/runbooks/abc.md',
          },
        },
        { severity: 'critical', namespace: 'namespace', poddisruptionbudget: 'some-pdb' },
      ),
      alert('PodDisruptionBudgetAtLimit', {}, { namespace: 'ns', poddisruptionbudget: 'pdb' }),
      alert('KubeContainerWaiting'),
      alert('KubeNodeNotReady'),
      alert('VMCannotBeEvicted'),
      alert('SomePrecheck', {}, { openShiftUpdatePrecheck: 'true' }),
      alert('JustAWarning'),
      alert('StillPending', { state: 'pending' }, { severity: 'critical' }),
    ]);
    expect(risks.map((r) => r.name)).toEqual([
      'KubeContainerWaiting',
      'KubeNodeNotReady',
      'PodDisruptionBudgetAtLimit',
      'PodDisruptionBudgetLimit',
      'SomePrecheck',
      'VMCannotBeEvicted',
    ]);
    const critical = risks.find((r) => r.name === 'PodDisruptionBudgetLimit')!;
    expect(critical).toMatchObject({
      message: 'summary.',
      url: 'http://runbook.example.com/runbooks/abc.md',
      matchingRules: [{ type: 'Always' }],
      applies: {
        type: 'Applies',
        status: 'True',
        reason: 'Alert:firing',
        lastTransitionTime: '2026-12-01T10:00:00Z',
        message:
          'critical alert PodDisruptionBudgetLimit firing, suggesting significant cluster issues worth investigating. Namespace=namespace, PodDisruptionBudget=some-pdb. summary. The alert description is: description | message http://runbook.example.com/runbooks/abc.md',
      },
    });
    expect(risks.find((r) => r.name === 'PodDisruptionBudgetAtLimit')!.applies!.message).toBe(
      'warning alert PodDisruptionBudgetAtLimit firing, which might slow node drains. Namespace=ns, PodDisruptionBudget=pdb. PodDisruptionBudgetAtLimit summary. The alert has no description. <alert does not have a runbook_url annotation>',
    );
    expect(risks.find((r) => r.name === 'KubeContainerWaiting')!.url).toBe(
      'https://github.com/openshift/runbooks/tree/master/alerts?runbook=notfound',
    );
  });

  it('several alerts of one name: one risk, their messages joined, the earliest start', () => {
    const [risk] = alertRisks([
      alert('KubeNodeNotReady', { activeAt: '2026-12-01T11:00:00Z' }),
      alert('KubeNodeNotReady', { activeAt: '2026-12-01T09:00:00Z' }),
    ]);
    expect(risk!.applies!.lastTransitionTime).toBe('2026-12-01T09:00:00Z');
    expect(risk!.applies!.message.split('; ')).toHaveLength(2);
  });

  it('one alert name firing for a thousand pods: one condition, its messages joined up to a bound, the rest counted', () => {
    const [risk] = alertRisks(Array.from({ length: 1_000 }, () => alert('KubeContainerWaiting')));
    expect(risk!.applies!.message.length).toBeLessThan(8_300);
    expect(risk!.applies!.message).toMatch(/; and \d+ more alerts KubeContainerWaiting$/);
  });

  it('bounds what an alert brings: long texts cut, a malformed start the epoch', () => {
    const [risk] = alertRisks([
      alert('KubeNodeNotReady', {
        activeAt: 'yesterday',
        annotations: { summary: 'x'.repeat(100_000), description: 'y'.repeat(100_000) },
      }),
    ]);
    expect(risk!.applies!.lastTransitionTime).toBe('1970-01-01T00:00:00Z');
    expect(risk!.message.length).toBeLessThan(1_100);
    expect(risk!.applies!.message.length).toBeLessThan(2_400);
  });
});

describe('alerts that are not what they should be', () => {
  it('fields of the wrong type, no labels, null alerts and states other than firing are passed over, never thrown', () => {
    const odd = [
      null,
      { labels: { alertname: 123, severity: 'critical' }, state: 'firing' },
      { labels: { alertname: ['Abc'], severity: 'critical' }, state: 'firing' },
      { state: 'firing' },
      { labels: { alertname: 'NoState', severity: 'critical' } },
      { labels: { alertname: 'Inactive', severity: 'critical' }, state: 'inactive' },
      {
        labels: { alertname: 'Odd', severity: 'critical' },
        annotations: { summary: 5, runbook_url: 7 },
        state: 'firing',
        activeAt: '+010000-01-01T00:00:00Z',
      },
    ] as unknown as Alert[];
    const risks = alertRisks(odd);
    expect(risks.map((r) => r.name)).toEqual(['Odd']);
    expect(risks[0]).toMatchObject({
      message: 'Odd.',
      url: 'https://github.com/openshift/runbooks/tree/master/alerts?runbook=notfound',
      applies: { reason: 'Alert:firing', lastTransitionTime: '1970-01-01T00:00:00Z' },
    });
  });
});
