// The variants a channel's view is served in while rollouts run: one per set of rollouts a cluster is
// not offered yet, each made once and kept within a bound however many ids ask; a halted rollout's
// edges conditional on its risk (after the risks they had), a cancelled one's gone, other channels plain.
import { describe, expect, it } from 'vitest';
import { RolloutVariants } from '../../../../src/app/rollouts/variants.js';
import { buildGraph } from '../../../../src/graph/build.js';
import type { Channel, Risk } from '../../../../src/graph/model.js';
import { declaredRollout, offeredAt, type Rollout } from '../../../../src/graph/rollouts.js';
import type { GraphDocument } from '../../../../src/graph/view.js';
import { rel } from '../../../support/releases.js';

const HOUR = 3600_000;
const chan = (name: string, versions: string[]): Channel => ({ name, internal: false, versions, tombstones: [] });
const risk: Risk = { url: 'https://x.example/r', name: 'OldRisk', message: 'old', matchingRules: [{ type: 'Always' }] };
const graph = buildGraph({
  releases: [rel('4.1.0'), rel('4.1.1', ['4.1.0']), rel('4.1.2', ['4.1.0', '4.1.1']), rel('4.1.3', ['4.1.1', '4.1.2'])],
  channels: [
    chan('stable-4.1', ['4.1.0', '4.1.1', '4.1.2', '4.1.3']),
    chan('fast-4.1', ['4.1.0', '4.1.1', '4.1.2', '4.1.3']),
  ],
  blockedEdges: [{ id: '4.1.2-OldRisk', to: '4.1.2', from: '4[.]1[.]0', risk }],
  rawMetadata: {},
});
const rollout = (id: string, to: string, extra: Partial<Rollout> = {}): Rollout => ({
  ...declaredRollout({
    ...{ id, channel: 'stable-4.1', to, from: null, start: 100 * HOUR, duration: 'PT10H', durationMs: 10 * HOUR },
    ...{ url: `https://updates.example/api/v1/rollouts/${id}`, createdAt: 1, createdBy: 'alice' },
  }),
  ...extra,
});
const doc = (v: { identity: Buffer } | undefined): GraphDocument => JSON.parse(v!.identity.toString()) as GraphDocument;
const names = (d: GraphDocument) => ({
  edges: d.edges.map(([a, b]) => `${d.nodes[a]!.version}>${d.nodes[b]!.version}`),
  conditional: d.conditionalEdges.flatMap((c) =>
    c.edges.map((e) => `${e.from}>${e.to}:${c.risks.map((r) => r.name).join('+')}`),
  ),
});

describe('RolloutVariants', () => {
  it('withholds a rollout’s edges from a cluster until its turn; other channels and plain clusters get undefined', () => {
    const r = rollout('r-1', '4.1.3');
    const v = new RolloutVariants(graph, [r], r.start);
    expect(v.viewFor('fast-4.1', 'amd64', 'a', r.start)).toBeUndefined();
    const early = names(doc(v.viewFor('stable-4.1', 'amd64', 'a', r.start)));
    expect(early.edges).toEqual(['4.1.0>4.1.1', '4.1.1>4.1.2']);
    expect(early.conditional).toEqual(['4.1.0>4.1.2:OldRisk']);
    // From its turn on, the plain view (undefined: the caller serves its own).
    expect(v.viewFor('stable-4.1', 'amd64', 'a', offeredAt(r, 'a'))).toBeUndefined();
  });

  it('serves a halted rollout’s edges conditional on PhasedRolloutHalted, after the risks they had; a cancelled one’s to no one', () => {
    const halted = rollout('r-2', '4.1.2', { state: 'halted', reason: 'support', stateAt: 101 * HOUR });
    const cancelled = rollout('r-3', '4.1.3', { state: 'cancelled' });
    const v = new RolloutVariants(graph, [halted, cancelled], 200 * HOUR);
    const d = doc(v.viewFor('stable-4.1', 'amd64', undefined, 200 * HOUR));
    expect(names(d).edges).toEqual(['4.1.0>4.1.1']);
    expect(names(d).conditional).toEqual([
      '4.1.0>4.1.2:OldRisk+PhasedRolloutHalted',
      '4.1.1>4.1.2:PhasedRolloutHalted',
    ]);
    const added = d.conditionalEdges[0]!.risks[1]!;
    expect(added).toMatchObject({ name: 'PhasedRolloutHalted', url: halted.url, matchingRules: [{ type: 'Always' }] });
    expect(added.message).toContain('an administrator halted it: support');
  });

  it('keeps a bounded number of variants however many ids ask', () => {
    const six = ['4.1.1', '4.1.2', '4.1.3'].map((to, i) => rollout(`r-${i}`, to));
    const v = new RolloutVariants(graph, six, 105 * HOUR);
    const seen = new Set<unknown>();
    for (let i = 0; i < 5000; i++)
      seen.add(v.viewFor('stable-4.1', 'amd64', `garbage-${i}-${'x'.repeat(i % 50)}`, 105 * HOUR));
    // Three rollouts: at most 2^3 variants, each made once however many ids ask.
    expect(seen.size).toBeLessThanOrEqual(8);
    expect(seen.size).toBeGreaterThan(1);
  });

  it('lets four rollouts of a channel decide per cluster at once; a fifth in its window waits for its end', () => {
    const five = ['4.1.0', '4.1.1', '4.1.2', '4.1.3', '4.1.3'].map((to, i) =>
      rollout(`r-${i}`, to, { start: (100 + i) * HOUR, from: i === 4 ? '^4[.]1[.]2$' : null }),
    );
    const v = new RolloutVariants(graph, five, 0);
    const now = 106 * HOUR;
    const seen = new Set<unknown>();
    for (let i = 0; i < 3000; i++) seen.add(v.viewFor('stable-4.1', 'amd64', `c-${i}`, now));
    expect(seen.size).toBeLessThanOrEqual(16);
    expect(v.size).toBeLessThanOrEqual(16);
    // The fifth (4.1.2 → 4.1.3 only) is withheld from every cluster until its window ends, as without an id.
    for (let i = 0; i < 50; i++) {
      const d = names(
        doc(
          v.viewFor('stable-4.1', 'amd64', `c-${i}`, now) ?? {
            identity: Buffer.from(JSON.stringify({ nodes: [], edges: [], conditionalEdges: [] })),
          },
        ),
      );
      expect(d.edges).not.toContain('4.1.2>4.1.3');
    }
  });
});
