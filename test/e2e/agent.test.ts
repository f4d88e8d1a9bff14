// The agent end to end, all as processes: `cincy serve`, `cincy mock-cluster`, a real Prometheus
// scraping the mock cluster, and `cincy agent --once` writing the ClusterVersion status. The other poll
// scenarios run in-process (test/service/agent/poll.test.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { digest, recommendedOf, retrieved, writeAgentTree, type Status } from '../support/agentFixtures.js';
import { cincy, cincyAsync, serveCli, useCleanup } from '../support/cli.js';
import { serveMock, type Mock, CV } from '../support/mock.js';
import { prometheusAvailable, startPrometheus } from '../support/prometheus.js';

const cleanup = useCleanup();
const PDB_RUNBOOK =
  'https://github.com/openshift/runbooks/blob/master/alerts/cluster-kube-controller-manager-operator/PodDisruptionBudgetAtLimit.md';

/** Until `f` holds, for at most 30 s. */
async function until(what: string, f: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 30_000; !(await f());) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 30 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
const statusOf = async (m: Mock): Promise<Status> =>
  ((await m.kc.makeApiClient(k8s.CustomObjectsApi).getClusterCustomObject(CV)) as { status: Status }).status;
const setSpec = (m: Mock, spec: Record<string, unknown>): Promise<unknown> =>
  m.kc
    .makeApiClient(k8s.CustomObjectsApi)
    .patchClusterCustomObject(
      { ...CV, body: { spec } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );

describe.runIf(prometheusAvailable())('agent, end to end', () => {
  let graphUrl: string;

  type Run = Awaited<ReturnType<typeof cincyAsync>>;
  async function cluster(): Promise<{ m: Mock; prom: string; agent: (extra?: string[]) => Promise<Run> }> {
    graphUrl = (
      await serveCli(['--db', ':memory:', '--graph-data', writeAgentTree(join(cleanup.dir(), 'tree'))], cleanup)
    ).url;
    const dir = cleanup.dir();
    const m = await serveMock(
      [
        '--version',
        '4.16.3',
        '--channel',
        'stable-4.16',
        '--upstream',
        `${graphUrl}/api/upgrades_info/v1/graph`,
        '--platform',
        'AWS',
      ],
      dir,
      cleanup,
    );
    const caFile = join(dir, 'mock-ca.crt');
    writeFileSync(caFile, Buffer.from(m.kc.getCurrentCluster()!.caData!, 'base64'));
    // An alert the precheck of adm upgrade recommend reads, firing once the mock cluster is scraped.
    const rules = [
      'groups:',
      '  - name: cincy-test',
      '    rules:',
      '      - alert: PodDisruptionBudgetAtLimit',
      '        expr: count(cluster_version) > 0',
      '        labels: { severity: warning, namespace: openshift-monitoring, poddisruptionbudget: prometheus-k8s }',
      '        annotations:',
      '          summary: The pod disruption budget is preventing further disruption to pods.',
      '          description: The pod disruption budget is at the minimum disruptions allowed level.',
      `          runbook_url: ${PDB_RUNBOOK}`,
      '',
    ].join('\n');
    const prom = await startPrometheus(new URL(m.url).host, m.kc.getCurrentUser()!.token!, dir, cleanup, caFile, rules);
    const agent = (extra: string[] = []): Promise<Run> =>
      cincyAsync([
        'agent',
        '--kubeconfig',
        m.kubeconfig,
        '--once',
        '--prometheus-url',
        prom,
        '--log-level',
        'warn',
        ...extra,
      ]);
    return { m, prom, agent };
  }

  it('fills availableUpdates and conditionalUpdates from the graph and real PromQL, and adm upgrade reports them', async () => {
    const { m, prom, agent } = await cluster();
    const r = await agent();
    expect(r.code, r.stderr).toBe(0);
    const s = await statusOf(m);
    // As the CVO writes it: no reason and no message at all.
    expect(Object.keys(retrieved(s)!).sort()).toEqual(['lastTransitionTime', 'status', 'type']);
    expect(retrieved(s)).toMatchObject({ status: 'True' });
    expect(s.availableUpdates!.map((u) => u.version)).toEqual(['4.16.6', '4.16.4']);
    expect(s.availableUpdates![1]).toMatchObject({
      image: `quay.example/ocp/release@sha256:${digest('4.16.4')}`,
      url: 'https://errata.example/4.16.4',
      channels: ['stable-4.16'],
    });
    expect(s.conditionalUpdates!.map((c) => c.release.version)).toEqual(['4.16.8', '4.16.7', '4.16.6', '4.16.5']);
    expect(recommendedOf(s)).toEqual({
      '4.16.8': 'Unknown/EvaluationFailed',
      '4.16.7': 'False/Everywhere',
      '4.16.6': 'True/NotExposedToRisks',
      '4.16.5': 'False/OnAWS',
    });
    const unknown = s.conditionalUpdates![0]!.conditions[0]!;
    expect(unknown.message).toMatch(
      /^Could not evaluate exposure to update risk TwoSamples \(invalid PromQL result length must be one, but is \d+\)\n {2}TwoSamples description: TwoSamples hurts\.\n {2}TwoSamples URL: https:\/\/issues\.example\/TwoSamples$/,
    );
    expect(s.conditionalUpdates![3]!.conditions[0]!.message).toBe('OnAWS hurts. https://issues.example/OnAWS');
    expect(s.desired!.channels).toEqual(['stable-4.16']);

    // Nothing changed: the next poll writes nothing, and transition times stay.
    const before = JSON.stringify(s);
    expect((await agent()).code).toBe(0);
    expect(JSON.stringify(await statusOf(m))).toBe(before);

    const report = cincy(['adm', 'upgrade', '--kubeconfig', m.kubeconfig]);
    expect(report.stdout).toContain('Cluster version is 4.16.3\n');
    expect(report.stdout).toContain(`Upstream: ${graphUrl}/api/upgrades_info/v1/graph`);
    expect(report.stdout).toContain('Channel: stable-4.16 (available channels: stable-4.16)');
    expect(report.stdout).toMatch(/Recommended updates:\n\n {2}VERSION +IMAGE\n {2}4\.16\.6 +quay\.example/);
    expect(report.stdout).toContain(
      'Additional updates which are not recommended based on your cluster configuration are available',
    );
    const full = cincy(['adm', 'upgrade', '--kubeconfig', m.kubeconfig, '--include-not-recommended']).stdout;
    expect(full).toContain('Supported but not recommended updates:\n\n  Version: 4.16.8');
    expect(full).toContain(
      '  Recommended: False\n  Reason: OnAWS\n  Message: OnAWS hurts. https://issues.example/OnAWS',
    );

    expect(cincy(['adm', 'upgrade', '--kubeconfig', m.kubeconfig, '-o', 'json']).stdout).toContain(
      '"conditionalUpdates"',
    );

    // adm upgrade recommend: the precheck's findings from the alerts Prometheus fires, then the updates.
    await until('the alert firing', async () => {
      const res = await fetch(`${prom}/api/v1/alerts`);
      const doc = (await res.json()) as { data: { alerts: Array<{ state: string }> } };
      return doc.data.alerts.some((a) => a.state === 'firing');
    });
    const recommend = (...args: string[]) =>
      cincy(['adm', 'upgrade', 'recommend', '--kubeconfig', m.kubeconfig, '--prometheus-url', prom, ...args]);
    const recommended = recommend();
    expect(recommended.code, recommended.stderr).toBe(0);
    expect(recommended.stdout).toBe(
      [
        'The following conditions found no cause for concern in updating this cluster to later releases: recommended/CriticalAlerts (AsExpected), recommended/NodeAlerts (AsExpected), recommended/PodImagePullAlerts (AsExpected), recommended/UpdatePrecheckAlerts (AsExpected)',
        '',
        'The following conditions found cause for concern in updating this cluster to later releases: recommended/PodDisruptionBudgetAlerts/PodDisruptionBudgetAtLimit/0',
        '',
        'recommended/PodDisruptionBudgetAlerts/PodDisruptionBudgetAtLimit/0=False:',
        '',
        '  Reason: Alert:firing',
        `  Message: warning alert PodDisruptionBudgetAtLimit firing, which might slow node drains. Namespace=openshift-monitoring, PodDisruptionBudget=prometheus-k8s. The pod disruption budget is preventing further disruption to pods. The alert description is: The pod disruption budget is at the minimum disruptions allowed level. ${PDB_RUNBOOK}`,
        '',
        `Upstream update service: ${graphUrl}/api/upgrades_info/v1/graph`,
        'Channel: stable-4.16 (available channels: stable-4.16)',
        '',
        'Updates to 4.16:',
        '',
        '  Version: 4.16.8',
        `  Image: quay.example/ocp/release@sha256:${digest('4.16.8')}`,
        '  Reason: EvaluationFailed',
        `  Message: ${s.conditionalUpdates![0]!.conditions[0]!.message.replace(/\n/g, '\n  ')}`,
        '',
        '  Version: 4.16.7',
        `  Image: quay.example/ocp/release@sha256:${digest('4.16.7')}`,
        '  Reason: Everywhere',
        '  Message: Everywhere hurts. https://issues.example/Everywhere',
        '',
        "And 3 older 4.16 updates you can see with '--show-outdated-releases' or '--version VERSION'.",
        '',
      ].join('\n'),
    );
    // One target: the alert is an issue that applies until it is accepted.
    const target = recommend('--version', '4.16.6');
    expect(target.stdout).toMatch(
      /\nUpdate to 4\.16\.6 has no known issues relevant to this cluster\.\nImage: \S+\nRelease URL: https:\/\/errata\.example\/4\.16\.6\n$/,
    );
    expect(target.stderr).toBe(
      'cincy: issues that apply to this cluster but which were not included in --accept: PodDisruptionBudgetAtLimit\n',
    );
    expect(target.code).toBe(1);
    const accepted = recommend('--version', '4.16.6', '--accept', 'PodDisruptionBudgetAtLimit');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain(
      'Update to 4.16.6 has no known issues relevant to this cluster other than the accepted PodDisruptionBudgetAtLimit.\n',
    );
    // The channels 4.16.3 is in, from the graph, are those adm upgrade channel takes without being told.
    const outside = cincy(['adm', 'upgrade', 'channel', 'candidate-4.17', '--kubeconfig', m.kubeconfig]);
    expect(outside.stderr).toBe(
      'cincy: the requested channel "candidate-4.17" is not one of the available channels (stable-4.16), you must pass --allow-explicit-channel to continue\n',
    );
    expect(outside.code).toBe(1);
    const told = cincy([
      'adm',
      'upgrade',
      '--kubeconfig',
      m.kubeconfig,
      'channel',
      'candidate-4.17',
      '--allow-explicit-channel',
    ]);
    expect(told).toMatchObject({ code: 0, stdout: '' });
    expect(told.stderr).toContain('You have used --allow-explicit-channel to proceed anyway.');
    // In a channel without 4.16.3, nothing of stable-4.16 stays listed, and adm upgrade says why there is nothing.
    expect((await agent()).code).toBe(0);
    const elsewhere = await statusOf(m);
    expect(retrieved(elsewhere)).toMatchObject({ status: 'False', reason: 'VersionNotFound' });
    expect(elsewhere.availableUpdates).toBeNull();
    const nothing = cincy(['adm', 'upgrade', '--kubeconfig', m.kubeconfig]);
    expect(nothing.stdout).not.toContain('Recommended updates:');
    expect(nothing.stdout).not.toContain('Additional updates');
    expect(nothing.stderr).toBe(
      'warning: Cannot display available updates:\n  Reason: VersionNotFound\n  Message: Unable to retrieve available updates: currently reconciling cluster version 4.16.3 not found in the "candidate-4.17" channel\n\n',
    );
    await setSpec(m, { channel: 'stable-4.16' });
    await agent();
  }, 180_000); // four processes and Prometheus's scrapes: about 40 s on a quiet 2-core machine, over 60 s on a busy one
});
