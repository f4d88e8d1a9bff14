// The agent's poll in this process against a real Prometheus (a process) scraping the mock cluster's
// metrics: the poller against the mock cluster's API server in this process, and the update service in
// this process (test/support/pollRig.ts). The other poll scenarios are in test/service/agent/poll.test.ts;
// test/e2e/agent.test.ts runs the poll as a user does. Alert rules the Prometheus evaluates against the
// mock cluster's series make the alert risk source's risks.
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recommendedOf, retrieved } from '../support/agentFixtures.js';
import { useCleanup } from '../support/cleanup.js';
import { CONFORMANCE_DIR, conformanceAvailable } from '../support/conformance.js';
import { prometheusAvailable } from '../support/prometheus.js';
import { rig as pollRig } from '../support/pollRig.js';
import { alertSource } from '../../src/agent/riskSources/alert.js';
import { RiskEvaluator } from '../../src/agent/risks.js';

const cleanup = useCleanup();
const rig = (o: Parameters<typeof pollRig>[1] = {}) => pollRig(cleanup, o);

describe.runIf(prometheusAvailable())('the agent poll, in-process, with a real Prometheus', () => {
  it('keeps the updates with the right reason when the upstream or Prometheus fail, and recovers', async () => {
    const r = await rig({ prometheus: true });
    await r.poll();
    const good = r.status();
    expect(recommendedOf(good)).toEqual({
      '4.16.8': 'Unknown/EvaluationFailed',
      '4.16.7': 'False/Everywhere',
      '4.16.6': 'True/NotExposedToRisks',
      '4.16.5': 'False/OnAWS',
    });
    // Prometheus down: PromQL risks become Unknown, the rest is unaffected.
    await r.poll('http://127.0.0.1:1');
    const noProm = r.status();
    expect(recommendedOf(noProm)).toEqual({
      '4.16.8': 'Unknown/EvaluationFailed',
      '4.16.7': 'False/Everywhere',
      '4.16.6': 'Unknown/EvaluationFailed',
      '4.16.5': 'Unknown/EvaluationFailed',
    });
    expect(noProm.availableUpdates!.map((u) => u.version)).toEqual(['4.16.4']);
    await r.poll();
    // Switched to an upstream that cannot be reached: False/RemoteFailed, and the lists of the previous
    // upstream are cleared (the CVO keeps them only while the upstream is the one they came from); then back.
    r.setSpec({ upstream: 'http://127.0.0.1:1/graph' });
    await r.poll();
    const down = r.status();
    expect(retrieved(down)).toMatchObject({ status: 'False', reason: 'RemoteFailed' });
    expect(retrieved(down).message).toMatch(/^Unable to retrieve available updates: /);
    expect(down.availableUpdates).toBeNull();
    r.setSpec({ upstream: `${r.graphUrl}/api/upgrades_info/v1/graph` });
    await r.poll();
    expect(retrieved(r.status()).status).toBe('True');
    expect(r.status().availableUpdates).toEqual(good.availableUpdates);
  });

  it('merges firing alerts as risks of every update, as the newest CVO does, with the accept-risks API on', async () => {
    const always = 'count(cluster_version) > 0';
    const rules = [
      'groups:',
      '  - name: cincy-risk-sources',
      '    rules:',
      '      - alert: ClusterOnAWSCritical',
      "        expr: cluster_infrastructure_provider{type='AWS'} == 1",
      '        labels: { severity: critical }',
      '        annotations:',
      '          summary: The cluster runs on AWS',
      '          description: Something on AWS needs a look',
      '          runbook_url: https://runbooks.example.com/aws.md',
      '      - alert: KubeContainerWaiting',
      `        expr: ${always}`,
      '        labels: { severity: warning, namespace: openshift-etcd }',
      '        annotations: { summary: Pod container waiting longer than 1 hour }',
      '      - alert: etcdMembersDown',
      `        expr: ${always}`,
      '        labels: { severity: critical }',
      '      - alert: SlowToFire',
      `        expr: ${always}`,
      '        for: 1h',
      '        labels: { severity: critical }',
      '      - alert: InfoOnly',
      `        expr: ${always}`,
      '        labels: { severity: info }',
      '',
    ].join('\n');
    const r = await rig({ prometheus: true, rules, featureSet: 'TechPreviewNoUpgrade' });
    // Rules are evaluated every second: wait until the three that fire do, and the pending one is pending.
    for (let i = 0; ; i++) {
      const doc = (await (await fetch(`${r.prometheus}/api/v1/alerts`)).json()) as {
        data: { alerts: Array<{ labels: { alertname: string }; state: string }> };
      };
      const states = Object.fromEntries(doc.data.alerts.map((a) => [a.labels.alertname, a.state]));
      if (states.ClusterOnAWSCritical === 'firing' && states.etcdMembersDown === 'firing' && states.SlowToFire) break;
      if (i > 100) throw new Error(`the alerts did not fire: ${JSON.stringify(states)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const riskSources = [alertSource({ url: r.prometheus! })];

    // With the accept-risks API off, the CVO leaves alerts to oc: the lists are the graph's alone.
    await r.poll(undefined, { acceptRisks: 'disabled', riskSources });
    expect(r.status().availableUpdates!.map((u) => u.version)).toEqual(['4.16.6', '4.16.4']);

    const result = await r.poll(undefined, { riskSources }); // the API on: the cluster's FeatureGate says so
    const s = r.status();
    expect(s.availableUpdates).toBeNull();
    expect(Object.keys(recommendedOf(s)).sort()).toEqual(['4.16.4', '4.16.5', '4.16.6', '4.16.7', '4.16.8']);
    expect(recommendedOf(s)['4.16.4']).toBe('False/MultipleReasons');
    const updated = s.conditionalUpdates!.find((c) => c.release.version === '4.16.4')!;
    expect(updated.risks.map((k) => k.name)).toEqual(['ClusterOnAWSCritical', 'KubeContainerWaiting']);
    expect(updated.conditions[0]!.message).toBe(
      'The cluster runs on AWS. https://runbooks.example.com/aws.md\n\nPod container waiting longer than 1 hour. https://github.com/openshift/runbooks/tree/master/alerts?runbook=notfound',
    );
    const risk = s.conditionalUpdateRisks!.find((k) => k.name === 'ClusterOnAWSCritical')!;
    expect(risk.conditions).toEqual([
      expect.objectContaining({
        type: 'Applies',
        status: 'True',
        reason: 'Alert:firing',
        message:
          'critical alert ClusterOnAWSCritical firing, suggesting significant cluster issues worth investigating. The cluster runs on AWS. The alert description is: Something on AWS needs a look https://runbooks.example.com/aws.md',
      }),
    ]);
    // Not merged: a name off the convention (reported), a pending alert, an alert of no category.
    const names = s.conditionalUpdateRisks!.map((k) => k.name);
    for (const name of ['etcdMembersDown', 'SlowToFire', 'InfoOnly']) expect(names).not.toContain(name);
    expect(result.riskProblems).toEqual(['invalid risk name "etcdMembersDown" does not match "^[A-Z][A-Za-z0-9.-]*$"']);

    // Accepting both alerts makes 4.16.4 recommended again, as any accepted risk does.
    r.setSpec({ desiredUpdate: { acceptRisks: [{ name: 'ClusterOnAWSCritical' }, { name: 'KubeContainerWaiting' }] } });
    await r.poll(undefined, { riskSources });
    expect(recommendedOf(r.status())['4.16.4']).toBe('True/AllExposedRisksAccepted');
    expect(r.status().availableUpdates!.map((u) => u.version)).toContain('4.16.4');
  });

  it.runIf(conformanceAvailable())(
    'on the real graph with the one-query-a-second limit: every risk evaluated in about as many polls as distinct queries, none left queued',
    async () => {
      // The version of stable-4.14 whose conditional updates carry the most distinct PromQL queries, on a
      // copy of the real graph-data with three risks more whose queries fail as a metric missing on a real
      // cluster makes them fail (no sample): the CVO caches such a failure as it caches a result.
      const graphData = join(cleanup.dir(), 'graph-data');
      cpSync(join(CONFORMANCE_DIR, 'real-2024-08-09', 'graph-data'), graphData, { recursive: true });
      const graphOf = async (dir: string) => {
        const probe = await rig({ graphData: dir, prometheus: false });
        const g = (await (
          await fetch(`${probe.graphUrl}/api/upgrades_info/v1/graph?channel=stable-4.14&arch=amd64`, {
            headers: { accept: 'application/json' },
          })
        ).json()) as {
          nodes: Array<{ version: string }>;
          edges: Array<[number, number]>;
          conditionalEdges: Array<{
            edges: Array<{ from: string; to: string }>;
            risks: Array<{ matchingRules: Array<{ type: string; promql?: { promql: string } }> }>;
          }>;
        };
        const queries = new Map<string, Set<string>>();
        for (const c of g.conditionalEdges)
          for (const e of c.edges)
            for (const r of c.risks)
              for (const rule of r.matchingRules)
                if (rule.promql) queries.set(e.from, (queries.get(e.from) ?? new Set()).add(rule.promql.promql));
        const next = (from: string): string[] => [
          ...g.edges.filter(([f]) => g.nodes[f]!.version === from).map(([, t]) => g.nodes[t]!.version),
          ...g.conditionalEdges.flatMap((c) => c.edges.filter((e) => e.from === from).map((e) => e.to)),
        ];
        return { queries, next };
      };
      const real = await graphOf(graphData);
      const [version] = [...real.queries].sort((a, b) => b[1].size - a[1].size)[0]!;
      const targets = real.next(version).slice(0, 3);
      expect(targets).toHaveLength(3);
      targets.forEach((to, i) =>
        writeFileSync(
          join(graphData, 'blocked-edges', `${to}-CincyMissingMetric${i}.yaml`),
          [
            `to: ${to}`,
            `from: ${version.replace(/[.]/g, '[.]')}`,
            'url: https://issues.example.com/missing-metric',
            `name: CincyMissingMetric${i}`,
            'message: A risk whose metric this cluster does not have.',
            'matchingRules:',
            '- type: PromQL',
            '  promql:',
            `    promql: group(cincy_metric_no_cluster_has_${i})`,
            '',
          ].join('\n'),
        ),
      );
      const distinct = new Set([
        ...real.queries.get(version)!,
        ...targets.map((_, i) => `group(cincy_metric_no_cluster_has_${i})`),
      ]);
      expect(distinct.size).toBeGreaterThanOrEqual(8);

      const r = await rig({ version, channel: 'stable-4.14', graphData, prometheus: true });
      // One evaluator for every poll, as the agent keeps one, with the CVO's limit of a query a second.
      const evaluator = new RiskEvaluator({ url: r.prometheus }, Date.now);
      let polls = 0;
      let result;
      do {
        if (polls > 0) await new Promise((resolve) => setTimeout(resolve, 1_000)); // the loop comes back a second later
        result = await r.poll(undefined, { evaluator });
        polls += 1;
      } while (result.queuedEvaluations > 0 && polls <= 3 * distinct.size);
      console.log(
        `${version} on stable-4.14: ${distinct.size} distinct PromQL queries, ${result.conditional} conditional updates, settled in ${polls} polls`,
      );
      expect(result.queuedEvaluations).toBe(0);
      expect(polls).toBeLessThanOrEqual(distinct.size + 2);
      const s = r.status();
      for (const c of s.conditionalUpdates!)
        expect(c.conditions[0]!.message, c.release.version).not.toContain('client-side throttling');
      // The failing rules: evaluated once, their failure cached and reported, not queried on every pass.
      targets.forEach((to, i) => {
        const update = s.conditionalUpdates!.find((c) => c.release.version === to)!;
        expect(update.conditions[0]!.message).toContain(
          `Could not evaluate exposure to update risk CincyMissingMetric${i}`,
        );
      });
    },
    120_000,
  );

  it.runIf(conformanceAvailable())(
    'on the real graph: every available update is a direct edge or a conditional one whose risks all evaluate false',
    async () => {
      const r = await rig({
        version: '4.14.10',
        channel: 'stable-4.14',
        graphData: join(CONFORMANCE_DIR, 'real-2024-08-09', 'graph-data'),
        prometheus: true,
      });
      await r.poll();
      const s = r.status();
      expect(retrieved(s).status).toBe('True');
      const res = await fetch(`${r.graphUrl}/graph?channel=stable-4.14&arch=amd64`, {
        headers: { accept: 'application/json' },
      });
      const g = (await res.json()) as {
        nodes: Array<{ version: string }>;
        edges: Array<[number, number]>;
        conditionalEdges: Array<{ edges: Array<{ from: string; to: string }> }>;
      };
      const from = g.nodes.findIndex((n) => n.version === '4.14.10');
      const direct = new Set(g.edges.filter(([a]) => a === from).map(([, b]) => g.nodes[b]!.version));
      const conditional = new Set(
        g.conditionalEdges.flatMap((c) => c.edges.filter((e) => e.from === '4.14.10').map((e) => e.to)),
      );
      const recommendedConditional = new Set(
        s.conditionalUpdates!.filter((c) => c.conditions[0]!.status === 'True').map((c) => c.release.version),
      );
      expect(s.availableUpdates!.length).toBeGreaterThan(0);
      for (const u of s.availableUpdates!)
        expect(direct.has(u.version) || recommendedConditional.has(u.version), u.version).toBe(true);
      expect(new Set(s.availableUpdates!.map((u) => u.version))).toEqual(
        new Set([...direct, ...recommendedConditional]),
      );
      expect(new Set(s.conditionalUpdates!.map((c) => c.release.version))).toEqual(conditional);
    },
  );
});
