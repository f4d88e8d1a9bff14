// The agent's poll in this process against a real Prometheus (a process) scraping the mock cluster's
// metrics: the poller against the mock cluster's API server in this process, and the update service in
// this process (test/support/pollRig.ts). The other poll scenarios are in test/service/agent/poll.test.ts;
// test/e2e/agent.test.ts runs the poll as a user does.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recommendedOf, retrieved } from '../support/agentFixtures.js';
import { useCleanup } from '../support/cleanup.js';
import { CONFORMANCE_DIR, conformanceAvailable } from '../support/conformance.js';
import { prometheusAvailable } from '../support/prometheus.js';
import { rig as pollRig } from '../support/pollRig.js';

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
