// The graph semantics (edges, channel labels, edge and node removal, conditional edges, ordering),
// each rule on small plain values.
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../../src/graph/build.js';
import type { BlockedEdge, Channel, GraphInput, Risk } from '../../../src/graph/model.js';
import { channelView, type GraphDocument } from '../../../src/graph/view.js';
import { rel } from '../../support/releases.js';

const chan = (name: string, versions: string[]): Channel => ({ name, internal: false, versions, tombstones: [] });
const risk = (name: string, extra: Partial<Risk> = {}): Risk => ({
  url: `https://issues.example/${name}`,
  name,
  message: `${name} message`,
  matchingRules: [{ type: 'Always' }],
  ...extra,
});
const input = (p: Partial<GraphInput>): GraphInput => ({
  releases: [],
  channels: [],
  blockedEdges: [],
  rawMetadata: {},
  ...p,
});

function view(p: Partial<GraphInput>, channel = 'stable-4.1', arch = 'amd64'): GraphDocument {
  return channelView(buildGraph(input(p)), channel, arch);
}
const edgeNames = (d: GraphDocument): string[] =>
  d.edges.map(([a, b]) => `${d.nodes[a]!.version}>${d.nodes[b]!.version}`);
const condNames = (d: GraphDocument): string[] =>
  d.conditionalEdges.flatMap((c) => c.edges.map((e) => `${e.from}>${e.to}:${c.risks.map((r) => r.name).join('+')}`));

const all = ['4.1.0', '4.1.1', '4.1.2', '4.1.10'];
const line = [
  rel('4.1.0'),
  rel('4.1.1', ['4.1.0']),
  rel('4.1.2', ['4.1.0', '4.1.1']),
  rel('4.1.10', ['4.1.1', '4.1.2']),
];

describe('graph build', () => {
  it('sorts nodes by semver and edges by index, and serializes keys in protocol order', () => {
    const d = view({ releases: [...line].reverse(), channels: [chan('stable-4.1', all)] });
    expect(d.nodes.map((n) => n.version)).toEqual(['4.1.0', '4.1.1', '4.1.2', '4.1.10']);
    expect(d.edges).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
      [1, 3],
      [2, 3],
    ]);
    expect(Object.keys(d)).toEqual(['version', 'nodes', 'edges', 'conditionalEdges']);
    expect(Object.keys(d.nodes[0]!)).toEqual(['version', 'payload', 'metadata']);
  });

  it('adds edges from next, drops names that match no release, and never links architectures', () => {
    const d = view({
      releases: [
        rel('4.1.0', ['4.0.9'], { next: ['4.1.1'] }),
        rel('4.1.1'),
        rel('4.1.0', [], { arch: 'arm64' }),
        rel('4.1.1', ['4.1.0+amd64'], { arch: 'arm64' }),
      ],
      channels: [chan('stable-4.1', ['4.1.0', '4.1.1'])],
    });
    expect(edgeNames(d)).toEqual(['4.1.0>4.1.1']);
    expect(
      edgeNames(
        view(
          {
            releases: [rel('4.1.0', [], { arch: 'arm64' }), rel('4.1.1', ['4.1.0+amd64'], { arch: 'arm64' })],
            channels: [chan('stable-4.1', ['4.1.0', '4.1.1'])],
          },
          'stable-4.1',
          'arm64',
        ),
      ),
    ).toEqual([]);
  });

  it('keeps only the requested arch and channel entries with +arch for that arch only', () => {
    const releases = [
      rel('4.1.0'),
      rel('4.1.1', ['4.1.0']),
      rel('4.1.0', [], { arch: 'arm64' }),
      rel('4.1.1', ['4.1.0'], { arch: 'arm64' }),
    ];
    const channels = [chan('stable-4.1', ['4.1.0', '4.1.1+arm64'])];
    expect(view({ releases, channels }).nodes.map((n) => n.version)).toEqual(['4.1.0']);
    const arm = view({ releases, channels }, 'stable-4.1', 'arm64');
    expect(arm.nodes.map((n) => n.version)).toEqual(['4.1.0', '4.1.1']);
    expect(edgeNames(arm)).toEqual(['4.1.0>4.1.1']);
    expect(arm.nodes.every((n) => !n.version.includes('+'))).toBe(true);
  });

  it('orders channel metadata by the text after the first dash, as a string (4.10 before 4.9)', () => {
    const d = view(
      {
        releases: [rel('4.9.0')],
        channels: [
          chan('stable-4.9', ['4.9.0']),
          chan('candidate-4.10', ['4.9.0']),
          chan('fast-4.9', ['4.9.0']),
          chan('eus-4.10', ['4.9.0']),
          { ...chan('stable', ['4.9.0']), internal: true },
        ],
      },
      'stable-4.9',
    );
    expect(d.nodes[0]!.metadata['io.openshift.upgrades.graph.release.channels']).toBe(
      'candidate-4.10,eus-4.10,fast-4.9,stable-4.9',
    );
  });

  it('computes manifestref, marks multi releases, and never serves the internal arch key', () => {
    const d = view(
      {
        releases: [
          rel('4.1.0', [], { arch: 'multi', metadata: { 'io.openshift.upgrades.graph.release.arch': 'multi' } }),
        ],
        channels: [chan('stable-4.1', ['4.1.0'])],
      },
      'stable-4.1',
      'multi',
    );
    const md = d.nodes[0]!.metadata;
    expect(md['io.openshift.upgrades.graph.release.manifestref']).toBe(d.nodes[0]!.payload.split('@')[1]);
    expect(md['release.openshift.io/architecture']).toBe('multi');
    expect(md['io.openshift.upgrades.graph.release.arch']).toBeUndefined();
    expect(Object.keys(md)).toEqual([...Object.keys(md)].sort());
  });

  it('merges raw metadata into every arch; comma lists never repeat an item, other keys append', () => {
    const d = view({
      releases: [
        rel('4.1.0'),
        rel('4.1.1', [], { metadata: { 'io.openshift.upgrades.graph.previous.add': '4.1.0', description: 'a' } }),
      ],
      channels: [chan('stable-4.1', ['4.1.0', '4.1.1'])],
      rawMetadata: { '4.1.1': { 'io.openshift.upgrades.graph.previous.add': '4.1.0', description: 'b' } },
    });
    expect(d.nodes[1]!.metadata['io.openshift.upgrades.graph.previous.add']).toBe('4.1.0');
    expect(d.nodes[1]!.metadata.description).toBe('a,b');
    expect(edgeNames(d)).toEqual(['4.1.0>4.1.1']);
  });

  it('applies next.add, previous.remove (list and *), next.remove and release.remove', () => {
    const releases = [
      rel('4.1.0', [], {
        metadata: {
          'io.openshift.upgrades.graph.next.add': '4.1.10',
          'io.openshift.upgrades.graph.next.remove': '4.1.1',
        },
      }),
      rel('4.1.1', ['4.1.0']),
      rel('4.1.2', ['4.1.0', '4.1.1'], { metadata: { 'io.openshift.upgrades.graph.previous.remove': '4.1.1' } }),
      rel('4.1.10', ['4.1.2']),
      rel('4.1.11', ['4.1.10', '4.1.2'], { metadata: { 'io.openshift.upgrades.graph.previous.remove': '*' } }),
      rel('4.1.12', ['4.1.11'], { metadata: { 'io.openshift.upgrades.graph.release.remove': 'true' } }),
    ];
    const d = view({
      releases,
      channels: [chan('stable-4.1', ['4.1.0', '4.1.1', '4.1.2', '4.1.10', '4.1.11', '4.1.12'])],
    });
    expect(d.nodes.map((n) => n.version)).toEqual(['4.1.0', '4.1.1', '4.1.2', '4.1.10', '4.1.11']);
    expect(edgeNames(d)).toEqual(['4.1.0>4.1.2', '4.1.0>4.1.10', '4.1.2>4.1.10']);
  });

  it('turns matching edges into conditional ones with an unanchored search on <version>+<arch>', () => {
    const blockedEdges: BlockedEdge[] = [{ id: '4.1.10-A', to: '4.1.10', from: '1[.]1[+]amd', risk: risk('A') }];
    const d = view({ releases: line, channels: [chan('stable-4.1', all)], blockedEdges });
    expect(condNames(d)).toEqual(['4.1.1>4.1.10:A']);
    expect(edgeNames(d)).not.toContain('4.1.1>4.1.10');
    expect(d.nodes[3]!.metadata['io.openshift.upgrades.graph.previous.remove_regex']).toBe('1[.]1[+]amd');
  });

  it('removes hard-blocked edges but never a conditional one', () => {
    const blockedEdges: BlockedEdge[] = [
      { id: '4.1.10', to: '4.1.10', from: '.*' },
      { id: '4.1.10-A', to: '4.1.10', from: '4[.]1[.]2', risk: risk('A') },
    ];
    const d = view({ releases: line, channels: [chan('stable-4.1', all)], blockedEdges });
    expect(edgeNames(d)).toEqual(['4.1.0>4.1.1', '4.1.0>4.1.2', '4.1.1>4.1.2']);
    expect(condNames(d)).toEqual(['4.1.2>4.1.10:A']);
    // Joined in the order the files are read: 4.1.10-A.yaml before 4.1.10.yaml ('-' sorts before '.').
    expect(d.nodes[3]!.metadata['io.openshift.upgrades.graph.previous.remove_regex']).toBe('4[.]1[.]2|.*');
  });

  it('applies a block whose to names another arch to that arch only', () => {
    const releases = [...line, ...line.map((r) => ({ ...r, arch: 'arm64' }))];
    const blockedEdges: BlockedEdge[] = [{ id: '4.1.10-arm', to: '4.1.10+arm64', from: '.*' }];
    const channels = [chan('stable-4.1', all)];
    expect(edgeNames(view({ releases, channels, blockedEdges }))).toContain('4.1.2>4.1.10');
    expect(edgeNames(view({ releases, channels, blockedEdges }, 'stable-4.1', 'arm64'))).not.toContain('4.1.2>4.1.10');
  });

  it('puts each pair in one entry with every risk merged by name; the file read first wins', () => {
    const blockedEdges: BlockedEdge[] = [
      { id: '4.1.10-B', to: '4.1.10', from: '.*', risk: risk('B', { message: 'from the later file' }) },
      { id: '4.1.10-A', to: '4.1.10', from: '4[.]1[.]2', risk: risk('A') },
      { id: '4.1.10-A2', to: '4.1.10', from: '.*', risk: risk('B', { message: 'from the first file' }) },
    ];
    const d = view({ releases: line, channels: [chan('stable-4.1', all)], blockedEdges });
    expect(condNames(d)).toEqual(['4.1.1>4.1.10:B', '4.1.2>4.1.10:A+B']);
    for (const entry of d.conditionalEdges) {
      expect(entry.risks.find((r) => r.name === 'B')!.message).toBe('from the first file');
      expect(Object.keys(entry.risks[0]!)).toEqual(['url', 'name', 'message', 'matchingRules']);
    }
    expect(edgeNames(d).filter((e) => e.endsWith('>4.1.10'))).toEqual([]);
  });

  it('lists risks in the order of their files, as the reference reads them, not by risk name', () => {
    const blockedEdges: BlockedEdge[] = [
      { id: '4.1.10-lower-case-file', to: '4.1.10', from: '.*', risk: risk('Alpha') },
      { id: '4.1.10-Zeta', to: '4.1.10', from: '.*', risk: risk('Zeta') },
      { id: '4.1.10-Beta', to: '4.1.10', from: '.*', risk: risk('Beta') },
    ];
    const d = view({ releases: line, channels: [chan('stable-4.1', all)], blockedEdges });
    // Byte order of the file names: capitals before lower case.
    expect(condNames(d)).toEqual(['4.1.1>4.1.10:Beta+Zeta+Alpha', '4.1.2>4.1.10:Beta+Zeta+Alpha']);
  });

  it('groups pairs with the same risks in one entry, ordered by first pair', () => {
    const blockedEdges: BlockedEdge[] = [
      { id: '4.1.2-A', to: '4.1.2', from: '.*', risk: risk('A') },
      { id: '4.1.10-A', to: '4.1.10', from: '.*', risk: risk('A') },
    ];
    const d = view({ releases: line, channels: [chan('stable-4.1', all)], blockedEdges });
    expect(d.conditionalEdges).toHaveLength(1);
    expect(d.conditionalEdges[0]!.edges).toEqual([
      { from: '4.1.0', to: '4.1.2' },
      { from: '4.1.1', to: '4.1.2' },
      { from: '4.1.1', to: '4.1.10' },
      { from: '4.1.2', to: '4.1.10' },
    ]);
  });

  it('keeps a rule of an unknown type and serves it as given', () => {
    const rules = [{ type: 'Always' }, { type: 'FutureRule', future: { x: 1 } }];
    const d = view({
      releases: line,
      channels: [chan('stable-4.1', all)],
      blockedEdges: [{ id: 'x', to: '4.1.10', from: '.*', risk: risk('A', { matchingRules: rules }) }],
    });
    expect(d.conditionalEdges[0]!.risks[0]!.matchingRules).toEqual(rules);
  });

  it('drops edges and conditional edges with an end outside the channel', () => {
    const blockedEdges: BlockedEdge[] = [{ id: '4.1.10-A', to: '4.1.10', from: '4[.]1[.]1[+]', risk: risk('A') }];
    const d = view({ releases: line, channels: [chan('stable-4.1', ['4.1.0', '4.1.2', '4.1.10'])], blockedEdges });
    expect(edgeNames(d)).toEqual(['4.1.0>4.1.2', '4.1.2>4.1.10']);
    expect(d.conditionalEdges).toEqual([]);
  });

  it('evaluates a pattern that would backtrack catastrophically in linear time', () => {
    // A backtracking engine needs about 2^200 steps for this search; RE2 semantics need one pass.
    const long = `4.1.0-${'a'.repeat(200)}`;
    const releases = [rel(long), rel('4.1.1', [long])];
    const d = view({
      releases,
      channels: [chan('stable-4.1', [long, '4.1.1'])],
      blockedEdges: [{ id: 'x', to: '4.1.1', from: '(a+)+c$', risk: risk('A') }],
    });
    expect(condNames(d)).toEqual([]);
    expect(edgeNames(d)).toHaveLength(1);
  });

  it('gives the same bytes for the same input in any order', () => {
    const a = JSON.stringify(view({ releases: line, channels: [chan('stable-4.1', all)] }));
    const b = JSON.stringify(
      view({ releases: [...line].reverse(), channels: [chan('stable-4.1', [...all].reverse())] }),
    );
    expect(a).toBe(b);
  });
});
