// Graph history's pure parts: the state of a built graph (src/app/history/viewState.ts). The diff of two
// states of a view is in viewDiff.test.ts, the causes and actors given to each change in causes.test.ts.
import { describe, expect, it } from 'vitest';
import { ALL_RELEASES, serializeView, stateHash, viewKey, viewStates } from '../../../../src/app/history/viewState.js';
import { buildGraph } from '../../../../src/graph/build.js';

const boom = { message: 'It breaks.', url: 'https://issues.example/1', matchingRules: [{ type: 'Always' }] };

describe('viewStates', () => {
  const release = (version: string, previous: string[] = []) => ({
    version,
    arch: 'amd64',
    payload: `quay.example/ocp/release@sha256:${version.replace(/\D/g, '').padStart(64, '0')}`,
    previous,
    next: [],
    metadata: {},
  });

  it('keeps each public view: its releases, its edges with their risks, its risks; and every release of an arch', () => {
    const graph = buildGraph({
      releases: [release('4.16.1'), release('4.16.2', ['4.16.1']), release('4.16.3', ['4.16.2'])],
      channels: [
        { name: 'stable-4.16', internal: false, versions: ['4.16.1', '4.16.2', '4.16.3'], tombstones: [] },
        { name: 'ladder', internal: true, versions: ['4.16.1'], tombstones: [] },
      ],
      blockedEdges: [{ id: '4.16.3-Boom', to: '4.16.3', from: '4[.]16[.]2', risk: { name: 'Boom', ...boom } }],
      rawMetadata: {},
    });
    const state = new Map([...viewStates(graph, new Set(['stable-4.16']))].filter((step) => step !== undefined));
    expect([...state.keys()].sort()).toEqual([viewKey(ALL_RELEASES, 'amd64'), 'stable-4.16/amd64']);
    expect(state.get('stable-4.16/amd64')).toEqual({
      releases: ['4.16.1', '4.16.2', '4.16.3'],
      edges: { '4.16.1 4.16.2': [], '4.16.2 4.16.3': ['Boom'] },
      risks: { Boom: boom },
    });
    const serialized = new Map([...state].map(([k, v]) => [k, serializeView(v)]));
    expect(stateHash(serialized)).toBe(stateHash(new Map([...serialized].reverse())));
  });
});

describe('serializeView', () => {
  /** What a stored state was first written as: objects made with their keys sorted, then JSON.stringify. */
  const asFirstWritten = (view: { releases: string[]; edges: object; risks: object }): string => {
    const sorted = (o: object): object =>
      Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return JSON.stringify({ releases: view.releases, edges: sorted(view.edges), risks: sorted(view.risks) });
  };

  it('writes every state as it was first written, so that no stored state reads as changed', () => {
    // Risk names and edge keys that an object orders apart from the others: array indices (ascending, before
    // the rest), numbers that are not indices (01, 2**32 - 1), and names past ASCII.
    const names = ['Zeta', '10', 'alpha', '2', '01', '4294967295', '4294967294', 'Émile', 'B', '4.16.1 4.16.2', '-1'];
    const view = {
      releases: ['4.16.2', '4.16.1'],
      edges: Object.fromEntries(names.map((n, i) => [n, i % 2 ? [] : ['Boom', 'Alpha']])),
      risks: Object.fromEntries(names.map((n) => [n, { ...boom, message: `${n} "quoted"\n` }])),
    };
    expect(serializeView(view)).toBe(asFirstWritten(view));
    expect(JSON.parse(serializeView(view))).toEqual(view);
    // A value JSON has no text for is left out, as it always was (viewStates makes none).
    const holed = { ...view, risks: { ...view.risks, gone: undefined } } as unknown as typeof view;
    expect(serializeView(holed)).toBe(asFirstWritten(holed));
    const empty = { releases: [], edges: {}, risks: {} };
    expect(serializeView(empty)).toBe(asFirstWritten(empty));
  });
});
