// The agent's rules on plain values: response validation, post-processing, the Recommended condition,
// and a property over random graphs. test/service/agent-rules-http.test.ts has those that need an HTTP
// answer (the input checks, the fetch's deadline and cap, the PromQL cache).
import { describe, expect, it } from 'vitest';
import { parseGraph, updatesFrom, type GraphResponse } from '../../../src/agent/cincinnati.js';
import { keepTransition } from '../../../src/agent/conditions.js';
import { RiskEvaluator } from '../../../src/agent/risks.js';
import { acceptRisksOn } from '../../../src/agent/acceptRisks.js';
import { ClusterApiError, type ClusterApi } from '../../../src/cluster/api.js';
import {
  ALL_ACCEPTED,
  appliesCondition,
  NOT_EXPOSED,
  recommended,
  risksByName,
  updateStatus,
} from '../../../src/agent/recommendations.js';
import type { Risk } from '../../../src/graph/model.js';

const AT = '2026-01-01T00:00:00Z';
const risk = (name: string, rules: Risk['matchingRules'] = [{ type: 'Always' }]): Risk => ({
  name,
  url: `https://issues.example/${name}`,
  message: `${name} hurts.`,
  matchingRules: rules,
});
const node = (version: string, metadata: Record<string, string> = {}): GraphResponse['nodes'][number] => ({
  version,
  payload: `quay.example/r@sha256:${version.replace(/\D/g, '').padEnd(64, '0')}`,
  metadata,
});

describe('agent rules', () => {
  it('refuses responses a cluster refuses', () => {
    const bad = [
      ['not json', /invalid JSON/],
      ['{"edges":[]}', /no nodes list/],
      ['{"nodes":[{"version":"4.16","payload":"x"}]}', /not a semantic version/],
      ['{"nodes":[{"version":"4.16.3","payload":"x"}],"edges":[[0,"1"]]}', /edge 0 is not a pair/],
      [
        '{"nodes":[{"version":"4.16.3","payload":"x","metadata":{"release.openshift.io/architecture":"amd64"}}]}',
        /architecture value "amd64"/,
      ],
      [
        '{"nodes":[{"version":"4.16.3","payload":"x"}],"conditionalEdges":[{"edges":[{"from":"4.16.3","to":"4.16.9"}],"risks":[{"name":"A","url":"u","message":"m","matchingRules":[]}]}]}',
        /names a version that is not a node/,
      ],
      [
        '{"nodes":[{"version":"4.16.3","payload":"x"}],"conditionalEdges":[{"edges":[],"risks":[]}]}',
        /at least one risk/,
      ],
      [
        '{"nodes":[{"version":"4.16.3","payload":"x"}],"conditionalEdges":[{"edges":[],"risks":[null]}]}',
        /a risk needs a name, url and message/,
      ],
      [
        '{"nodes":[{"version":"4.16.3","payload":"x"}],"conditionalEdges":[{"edges":[],"risks":[{"name":"A","url":"u","message":"m","matchingRules":{}}]}]}',
        /matchingRules must be a list/,
      ],
    ] as const;
    for (const [text, message] of bad) {
      expect(() => parseGraph(text), text).toThrow(message);
    }
    expect(
      parseGraph('{"nodes":[{"version":"4.16.3+build.1","payload":"x","metadata":null}]}').nodes[0]!.metadata,
    ).toEqual({});
  });

  it('prunes invalid rules, drops a risk left with none, and offers only the current version as multi when migrating', () => {
    const g: GraphResponse = {
      nodes: [node('4.16.3'), node('4.16.4'), node('4.16.5')],
      edges: [],
      conditionalEdges: [
        {
          edges: [{ from: '4.16.3', to: '4.16.4' }],
          risks: [risk('A', [{ type: 'Future' }, { type: 'PromQL', promql: { promql: 'up' } }])],
        },
        {
          edges: [{ from: '4.16.3', to: '4.16.5' }],
          risks: [
            risk('B', [
              { type: 'Always', promql: { promql: 'x' } } as never,
              { type: 'PromQL', promql: { promql: ' ' } },
            ]),
          ],
        },
      ],
    };
    const u = updatesFrom(g, '4.16.3');
    expect(u.conditional.map((c) => c.release.version)).toEqual(['4.16.4']);
    expect(u.conditional[0]!.risks[0]!.matchingRules).toEqual([{ type: 'PromQL', promql: { promql: 'up' } }]);
    expect(
      updatesFrom(
        { ...g, nodes: [node('4.16.3', { 'release.openshift.io/architecture': 'multi' }), ...g.nodes.slice(1)] },
        '4.16.3',
        true,
      ),
    ).toEqual({
      available: [{ version: '4.16.3', image: g.nodes[0]!.payload, architecture: 'Multi' }],
      conditional: [],
    });
  });

  it('composes the Recommended condition with its precedence, reasons and messages', () => {
    const A = risk('A');
    const weird = risk('Not a reason!');
    const U = risk('U');
    const applies = new Map([
      ['A', appliesCondition(A, { applies: true }, AT)],
      ['B', appliesCondition(risk('B'), { applies: false }, AT)],
      ['Not a reason!', appliesCondition(weird, { applies: true }, AT)],
      ['U', appliesCondition(U, { unknown: 'boom' }, AT)],
    ]);
    expect(recommended([], applies, undefined, AT)).toMatchObject({
      status: 'True',
      reason: 'NotExposedToRisks',
      message: NOT_EXPOSED,
    });
    expect(recommended([risk('B')], applies, undefined, AT).status).toBe('True');
    expect(recommended([weird], applies, undefined, AT)).toMatchObject({ status: 'False', reason: 'ExposedToRisks' });
    const mixed = recommended([U, A], applies, undefined, AT);
    expect(mixed).toMatchObject({ status: 'False', reason: 'MultipleReasons' });
    expect(mixed.message).toBe(
      'Could not evaluate exposure to update risk U (boom)\n  U description: U hurts.\n  U URL: https://issues.example/U\n\nA hurts. https://issues.example/A',
    );
    // The same risk applying twice is one reason.
    expect(recommended([A, A], applies, undefined, AT).reason).toBe('A');
    const later = recommended([], applies, undefined, '2026-02-01T00:00:00Z');
    expect(keepTransition(later, { ...later, lastTransitionTime: AT }).lastTransitionTime).toBe(AT);
    expect(keepTransition(later, { ...later, status: 'False', lastTransitionTime: AT }).lastTransitionTime).toBe(
      '2026-02-01T00:00:00Z',
    );
  });

  it("counts an accepted risk only with the accept-risks feature on, folding reasons in the risks' order", () => {
    const [A, C] = [risk('A'), risk('C')];
    const applies = new Map([
      ['A', appliesCondition(A, { applies: true }, AT)],
      ['C', appliesCondition(C, { applies: true }, AT)],
    ]);
    // Feature off: acceptRisks is not read.
    expect(recommended([A], applies, undefined, AT)).toMatchObject({ status: 'False', reason: 'A' });
    expect(recommended([A], applies, new Set(['A']), AT)).toMatchObject({
      status: 'True',
      reason: 'AllExposedRisksAccepted',
      message: ALL_ACCEPTED,
    });
    // An accepted risk before an unaccepted one gives way to it; after it, the two reasons are MultipleReasons.
    expect(recommended([A, C], applies, new Set(['A']), AT)).toMatchObject({
      status: 'False',
      reason: 'C',
      message: 'C hurts. https://issues.example/C',
    });
    expect(recommended([C, A], applies, new Set(['A']), AT)).toMatchObject({
      status: 'False',
      reason: 'MultipleReasons',
    });
  });

  it('evaluates each risk once, with the definition of the highest target that carries it, listed by name', () => {
    const release = (version: string) => ({ version, image: `quay.example/r:${version}` });
    const own = (name: string, v: string): Risk => ({ ...risk(name), message: `${name} as of ${v}` });
    const listed = risksByName([
      { release: release('4.16.4'), risks: [own('Z', '4.16.4'), own('B', '4.16.4')] },
      { release: release('4.16.9'), risks: [own('B', '4.16.9')] },
      { release: release('4.16.5'), risks: [own('A', '4.16.5'), own('Z', '4.16.5')] },
    ]);
    expect(listed.map((r) => `${r.name}: ${r.message}`)).toEqual([
      'A: A as of 4.16.5',
      'B: B as of 4.16.9',
      'Z: Z as of 4.16.5',
    ]);
    expect(appliesCondition(listed[0]!, { applies: false }, AT)).toEqual({
      type: 'Applies',
      status: 'False',
      reason: 'NotMatch',
      message: '',
      lastTransitionTime: AT,
    });
  });

  it('property: every available update is a direct edge or a conditional one whose risks do not apply', () => {
    let seed = 42;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 200; round++) {
      const versions = Array.from({ length: 3 + rand(8) }, (_, i) => `4.16.${i}`);
      const nodes = versions.map((v) => node(v));
      const edges: Array<[number, number]> = [];
      const conditionalEdges: GraphResponse['conditionalEdges'] = [];
      const exposure = new Map<string, boolean>();
      for (let to = 1; to < versions.length; to++) {
        const kind = rand(4);
        if (kind === 0) edges.push([0, to]);
        if (kind >= 2) {
          const name = `R${rand(4)}`;
          exposure.set(name, rand(2) === 0);
          conditionalEdges.push({ edges: [{ from: '4.16.0', to: versions[to]! }], risks: [risk(name)] });
          if (kind === 3) edges.push([0, to]); // also unconditional: the conditional one stands
        }
      }
      const u = updatesFrom({ nodes, edges, conditionalEdges }, '4.16.0');
      const conditional = u.conditional.map((c) => ({
        ...c,
        conditions: [
          recommended(
            c.risks,
            new Map(c.risks.map((r) => [r.name, appliesCondition(r, { applies: exposure.get(r.name)! }, AT)])),
            undefined,
            AT,
          ),
        ],
      }));
      const s = updateStatus(u.available, conditional);
      const direct = new Set(edges.filter(([a]) => a === 0).map(([, b]) => versions[b]));
      const safe = new Set(
        conditionalEdges
          .filter((c) => c.risks.every((r) => !exposure.get(r.name)))
          .flatMap((c) => c.edges.map((e) => e.to)),
      );
      const conditionalTargets = new Set(conditionalEdges.flatMap((c) => c.edges.map((e) => e.to)));
      for (const r of s.availableUpdates ?? []) {
        expect(
          conditionalTargets.has(r.version) ? safe.has(r.version) : direct.has(r.version),
          `round ${round}: ${r.version}`,
        ).toBe(true);
      }
      const listed = (s.availableUpdates ?? []).map((r) => r.version);
      expect(listed).toEqual([...listed].sort((a, b) => Number(b.split('.')[2]) - Number(a.split('.')[2])));
    }
  });

  it('omits conditionalUpdateRisks when no update has a risk, as the CVO does (the schema wants one at least)', () => {
    expect(updateStatus([], [], [])).toEqual({ availableUpdates: null, conditionalUpdates: [] });
  });

  it('reads the accept-risks gate from the FeatureGate for the running version; off without one it may read', async () => {
    const cv = { metadata: {}, spec: { clusterID: 'x' }, status: { desired: { version: '4.16.3', image: 'i' } } };
    const gates = (status: number | undefined, enabled: string[] = []) =>
      ({
        get: async () => {
          if (status) throw new ClusterApiError(status, 'Forbidden', 'no');
          return { status: { featureGates: [{ version: '4.16.3', enabled: enabled.map((name) => ({ name })) }] } };
        },
      }) as unknown as ClusterApi;
    expect(await acceptRisksOn(gates(undefined, ['ClusterUpdateAcceptRisks']), cv, 'auto')).toBe(true);
    expect(await acceptRisksOn(gates(undefined, ['Other']), cv, 'auto')).toBe(false);
    expect(await acceptRisksOn(gates(404), cv, 'auto')).toBe(false);
    expect(await acceptRisksOn(gates(403), cv, 'auto')).toBe(false);
    expect(await acceptRisksOn(gates(403), cv, 'enabled')).toBe(true);
    expect(await acceptRisksOn(gates(undefined, ['ClusterUpdateAcceptRisks']), cv, 'disabled')).toBe(false);
    await expect(acceptRisksOn(gates(500), cv, 'auto')).rejects.toThrow('no');
  });

  it("aggregates the failures of a risk's rules as Kubernetes does: each message once, brackets for two or more", async () => {
    const evaluator = new RiskEvaluator({}, Date.now, { minIntervalMs: 0 });
    const rule = (q: string) => ({ type: 'PromQL', promql: { promql: q } });
    expect(await evaluator.evaluate(risk('Twice', [rule('a'), rule('b')]))).toEqual({
      unknown: 'no Prometheus URL is configured',
    });
    expect(await evaluator.evaluate(risk('None', [{ type: 'Unknown' }]))).toEqual({
      unknown: 'no rule could be evaluated',
    });
  });

  it("hostile finding 7: copies a risk into status by its schema: the four fields and each rule's own, nothing else the graph carries", () => {
    const deep = JSON.parse('{"a":'.repeat(5000) + '1' + '}'.repeat(5000)) as unknown;
    const odd = {
      ...risk('Odd', [
        { type: 'PromQL', promql: { promql: 'up == 0', extra: deep }, note: 'x' },
        { type: 'Always', because: 'reasons' },
      ] as unknown as Risk['matchingRules']),
      extra: deep,
    } as Risk;
    const u = updatesFrom(
      {
        nodes: [node('4.16.3'), node('4.16.4')],
        edges: [],
        conditionalEdges: [{ edges: [{ from: '4.16.3', to: '4.16.4' }], risks: [odd] }],
      },
      '4.16.3',
    );
    expect(u.conditional[0]!.risks).toEqual([
      {
        url: 'https://issues.example/Odd',
        name: 'Odd',
        message: 'Odd hurts.',
        matchingRules: [{ type: 'PromQL', promql: { promql: 'up == 0' } }, { type: 'Always' }],
      },
    ]);
  });
});
