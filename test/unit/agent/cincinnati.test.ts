// The agent's rules on plain values, those of the update service's answer (src/agent/cincinnati.ts):
// response validation and post-processing. test/service/agent/cincinnati.test.ts has those that need an
// HTTP answer (the input checks, the fetch's deadline and cap); the Recommended condition and a property
// over random graphs are in recommendations.test.ts, the accept-risks gate in acceptRisks.test.ts, the
// aggregation of a risk's failures in risks.test.ts.
import { describe, expect, it } from 'vitest';
import { parseGraph, updatesFrom, type GraphResponse } from '../../../src/agent/cincinnati.js';
import type { Risk } from '../../../src/graph/model.js';
import { node, risk } from '../../support/agentRules.js';

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
