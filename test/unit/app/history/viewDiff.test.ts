// Graph history's pure parts: the diff of two states of a view, the causes and actors given to each
// change, and the state of a built graph.
import { describe, expect, it } from 'vitest';
import { changeActor, attribute } from '../../../../src/app/history/causes.js';
import { EMPTY_VIEW, viewDiff } from '../../../../src/app/history/viewDiff.js';
import { ALL_RELEASES, serializeView, stateHash, viewKey, viewStates } from '../../../../src/app/history/viewState.js';
import type { ViewState } from '../../../../src/app/history/viewState.js';
import { buildGraph } from '../../../../src/graph/build.js';
import type { AuditEntry } from '../../../../src/store/audit.js';

const at = '2026-01-01T00:00:00.000Z';
const where = { channel: 'stable-4.16', arch: 'amd64', at };
const boom = { message: 'It breaks.', url: 'https://issues.example/1', matchingRules: [{ type: 'Always' }] };

const entry = (id: number, actor: string, action: string, target: string, after: unknown = null): AuditEntry => ({
  id,
  at,
  actor,
  action,
  target,
  before: null,
  after,
  reason: null,
});

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

describe('attribute', () => {
  const ctx = {
    knownBefore: new Set(['amd64/4.16.1']),
    channels: [{ name: 'stable-4.16', internal: false, versions: [], tombstones: ['4.16.0'] }],
    blockedEdges: [{ id: 'b', to: '4.16.3', from: '4[.]16[.].*' }],
    audit: [] as AuditEntry[],
  };

  it('gives each change its cause: a new release, a promotion, a tombstone, a blocked edge, metadata', () => {
    const changes = attribute(
      [
        { kind: 'release-added', ...where, version: '4.16.1' },
        { kind: 'release-added', ...where, version: '4.16.2' },
        { kind: 'release-withdrawn', ...where, version: '4.16.0' },
        { kind: 'release-withdrawn', ...where, version: '4.15.9' },
        { kind: 'edge-added', ...where, from: '4.16.1', to: '4.16.2' },
        { kind: 'edge-removed', ...where, from: '4.16.5', to: '4.16.3' },
        { kind: 'edge-removed', ...where, from: '4.15.1', to: '4.15.2' },
        { kind: 'risk-declared', ...where, risk: 'Boom' },
      ],
      ctx,
    );
    expect(changes.map((c) => c.cause)).toEqual([
      'promotion',
      'release',
      'tombstone',
      'withdrawal',
      'release',
      'blocked-edge',
      'metadata',
      'risk',
    ]);
    expect(changes.every((c) => c.actor === undefined)).toBe(true);
  });

  it('takes the actor from the audit entries the change matches, else from the only actor', () => {
    const audit = [
      entry(1, 'alice', 'channel.promote', 'public/stable-4.16', { version: '4.16.2' }),
      entry(2, 'bob', 'risk.add', '4.16.2-Boom', { to: '4.16.2', risk: { name: 'Boom' } }),
    ];
    expect(changeActor({ kind: 'release-added', ...where, version: '4.16.2' }, audit)).toBe('alice');
    expect(changeActor({ kind: 'risk-declared', ...where, risk: 'Boom' }, audit)).toBe('bob');
    expect(changeActor({ kind: 'release-added', ...where, version: '4.16.9' }, audit)).toBeUndefined();
    expect(changeActor({ kind: 'release-added', ...where, version: '4.16.9' }, audit.slice(0, 1))).toBe('alice');
    expect(changeActor({ kind: 'release-added', ...where, version: '4.16.9' }, [])).toBeUndefined();
  });
});

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
