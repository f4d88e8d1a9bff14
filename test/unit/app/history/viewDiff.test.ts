// Graph history's pure parts: the diff of two states of a view (src/app/history/viewDiff.ts). The causes
// and actors given to each change are in causes.test.ts, the state of a built graph in viewState.test.ts.
import { describe, expect, it } from 'vitest';
import { EMPTY_VIEW, viewDiff } from '../../../../src/app/history/viewDiff.js';
import type { ViewState } from '../../../../src/app/history/viewState.js';

const at = '2026-01-01T00:00:00.000Z';
const where = { channel: 'stable-4.16', arch: 'amd64', at };
const boom = { message: 'It breaks.', url: 'https://issues.example/1', matchingRules: [{ type: 'Always' }] };

describe('viewDiff', () => {
  it('finds releases, edges and risks added and removed', () => {
    const before: ViewState = { releases: ['4.16.0', '4.16.1'], edges: { '4.16.0 4.16.1': [] }, risks: {} };
    const after: ViewState = {
      releases: ['4.16.1', '4.16.2'],
      edges: { '4.16.1 4.16.2': ['Boom'] },
      risks: { Boom: boom },
    };
    expect(viewDiff(before, after, where)).toEqual([
      { kind: 'release-added', at, channel: 'stable-4.16', arch: 'amd64', version: '4.16.2' },
      { kind: 'release-withdrawn', at, channel: 'stable-4.16', arch: 'amd64', version: '4.16.0' },
      {
        kind: 'edge-added',
        at,
        channel: 'stable-4.16',
        arch: 'amd64',
        from: '4.16.1',
        to: '4.16.2',
        detail: { risks: ['Boom'] },
      },
      { kind: 'edge-removed', at, channel: 'stable-4.16', arch: 'amd64', from: '4.16.0', to: '4.16.1' },
      {
        kind: 'risk-declared',
        at,
        channel: 'stable-4.16',
        arch: 'amd64',
        risk: 'Boom',
        detail: { ...boom, edges: [{ from: '4.16.1', to: '4.16.2' }] },
      },
    ]);
  });

  it('tells a risk changed from one withdrawn, and finds nothing between equal states', () => {
    const one: ViewState = { releases: ['1', '2'], edges: { '1 2': ['Boom'] }, risks: { Boom: boom } };
    const changed: ViewState = { ...one, risks: { Boom: { ...boom, message: 'Worse.' } } };
    expect(viewDiff(one, one, where)).toEqual([]);
    expect(viewDiff(one, changed, where)).toMatchObject([
      { kind: 'risk-changed', risk: 'Boom', detail: { message: 'Worse.', before: { message: 'It breaks.' } } },
    ]);
    expect(viewDiff(one, { ...one, edges: { '1 2': [] }, risks: {} }, where)).toMatchObject([
      { kind: 'risk-withdrawn', risk: 'Boom', detail: { edges: [{ from: '1', to: '2' }] } },
    ]);
    expect(viewDiff(EMPTY_VIEW, EMPTY_VIEW, where)).toEqual([]);
  });
});
