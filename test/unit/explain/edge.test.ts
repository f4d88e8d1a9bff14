// The edge explainer: each reason on small constructed inputs. Real pairs of the conformance set are in
// test/service/explain/edge.test.ts.
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../../src/graph/build.js';
import { explainEdge, type Explanation } from '../../../src/explain/edge.js';
import type { BlockedEdge, Channel, GraphInput, Risk } from '../../../src/graph/model.js';
import { rel } from '../../support/releases.js';

const chan = (name: string, versions: string[], extra: Partial<Channel> = {}): Channel => ({
  name,
  internal: false,
  versions,
  tombstones: [],
  ...extra,
});
const risk: Risk = {
  url: 'https://issues.example/R',
  name: 'Risk',
  message: 'It breaks.',
  matchingRules: [{ type: 'Always' }],
};

const NOW = new Date('2026-01-02T00:00:00Z');
const membership = new Map([['public/fast-4.1', new Map([['4.1.1', new Date('2026-01-01T12:00:00Z')]])]]);

function explain(p: Partial<GraphInput>, from = '4.1.0', to = '4.1.1', channel = 'stable-4.1'): Explanation {
  const input: GraphInput = {
    releases: [rel('4.1.0'), rel('4.1.1', ['4.1.0']), rel('4.1.2')],
    channels: [chan('stable-4.1', ['4.1.0', '4.1.1', '4.1.2'])],
    blockedEdges: [],
    rawMetadata: {},
    ...p,
  };
  return explainEdge(buildGraph(input), input, { from, to, channel, arch: 'amd64' }, { membership, now: NOW });
}

describe('explain: each reason on constructed inputs', () => {
  it('recommended', () => {
    const e = explain({});
    expect(e).toMatchObject({ edge: true, recommended: true, code: 'recommended', edgeInChannels: ['stable-4.1'] });
  });

  it('conditional, with its risks and the file that makes it so', () => {
    const blocked: BlockedEdge = { id: '4.1.1-Risk', to: '4.1.1', from: '4[.]1[.]0', risk };
    const e = explain({ blockedEdges: [blocked] });
    expect(e).toMatchObject({ edge: true, recommended: false, code: 'conditional', risks: [risk] });
    expect(e.blockedBy).toEqual([{ id: '4.1.1-Risk', to: '4.1.1', from: '4[.]1[.]0', risk }]);
  });

  it('an unknown channel', () => {
    expect(explain({}, '4.1.0', '4.1.1', 'stable-9.9').code).toBe('unknown-channel');
  });

  it('not a release of that arch', () => {
    const e = explain({ releases: [rel('4.1.0'), rel('4.1.1', ['4.1.0'], { arch: 'arm64' })] });
    expect(e).toMatchObject({ edge: false, code: 'not-a-release' });
    expect(e.message).toBe('4.1.1 is not a release of amd64');
  });

  it('a release its metadata removes', () => {
    const e = explain({ rawMetadata: { '4.1.1': { 'io.openshift.upgrades.graph.release.remove': 'true' } } });
    expect(e.code).toBe('release-removed');
  });

  it('not in the channel: the channels that have it and what the feeder needs', () => {
    const e = explain({
      channels: [
        chan('fast-4.1', ['4.1.0', '4.1.1']),
        chan('stable-4.1', ['4.1.0'], { feeder: { name: 'fast-4.1', filter: '4[.]1[.][0-9]+', delay: 'PT24H' } }),
        chan('eus-4.2', ['4.1.0'], { feeder: { name: 'fast-4.1', filter: '4[.]2[.]' } }),
      ],
    });
    expect(e).toMatchObject({ edge: false, code: 'not-in-channel', edgeInChannels: ['fast-4.1'] });
    expect(e.notInChannel).toEqual([
      {
        version: '4.1.1',
        channels: ['fast-4.1'],
        feeder: {
          feeder: 'fast-4.1',
          inFeeder: true,
          filter: '4[.]1[.][0-9]+',
          filterMatches: true,
          delay: 'PT24H',
          inFeederSince: '2026-01-01T12:00:00.000Z',
          refusal: {
            rule: 'feeder.delay',
            message:
              '4.1.1 entered fast-4.1 at 2026-01-01T12:00:00.000Z; the feeder delay PT24H of stable-4.1 ends at 2026-01-02T12:00:00.000Z',
          },
          message:
            'promotion would not add it now: 4.1.1 entered fast-4.1 at 2026-01-01T12:00:00.000Z; the feeder delay PT24H of stable-4.1 ends at 2026-01-02T12:00:00.000Z',
        },
      },
    ]);
    const eus = explain(
      {
        channels: [
          chan('fast-4.1', ['4.1.0', '4.1.1']),
          chan('eus-4.2', ['4.1.0'], { feeder: { name: 'fast-4.1', filter: '4[.]2[.]' } }),
        ],
      },
      '4.1.0',
      '4.1.1',
      'eus-4.2',
    );
    expect(eus.notInChannel![0]!.feeder).toMatchObject({ filterMatches: false, refusal: { rule: 'feeder.filter' } });
    expect(eus.notInChannel![0]!.feeder!.message).toContain("does not match the feeder filter '4[.]2[.]'");
    const ready = explain({
      channels: [
        chan('fast-4.1', ['4.1.0', '4.1.1']),
        chan('stable-4.1', ['4.1.0'], { feeder: { name: 'fast-4.1', delay: 'PT6H' } }),
      ],
    });
    expect(ready.notInChannel![0]!.feeder!.message).toBe('promotion from fast-4.1 would add it now');
    const tombstoned = explain({
      channels: [
        chan('fast-4.1', ['4.1.0', '4.1.1']),
        chan('stable-4.1', ['4.1.0'], { feeder: { name: 'fast-4.1' }, tombstones: ['4.1.1'] }),
      ],
    });
    expect(tombstoned.notInChannel![0]!.feeder!.refusal!.rule).toBe('tombstone');
  });

  it("a feeder entry with this arch's suffix is the one promotion would name; no time is made up", () => {
    const suffixed = explain({
      channels: [
        chan('fast-4.1', ['4.1.0', '4.1.1+amd64', '4.1.2+arm64']),
        chan('stable-4.1', ['4.1.0'], { feeder: { name: 'fast-4.1' } }),
      ],
    });
    const feeder = suffixed.notInChannel![0]!.feeder!;
    expect(feeder).toMatchObject({ inFeeder: true, message: 'promotion from fast-4.1 would add it now' });
    expect(feeder.inFeederSince).toBeUndefined(); // the membership map has no time for 4.1.1+amd64
    const otherArch = explain(
      {
        channels: [
          chan('fast-4.1', ['4.1.0', '4.1.2+arm64']),
          chan('stable-4.1', ['4.1.0'], { feeder: { name: 'fast-4.1' } }),
        ],
      },
      '4.1.0',
      '4.1.2',
    );
    expect(otherArch.notInChannel![0]!.feeder).toMatchObject({ inFeeder: false, refusal: { rule: 'feeder.source' } });
  });

  it("the target's previous does not list the source", () => {
    const e = explain({}, '4.1.0', '4.1.2');
    expect(e).toMatchObject({ edge: false, code: 'not-listed' });
    expect(e.message).toContain('the previous of 4.1.2 does not list 4.1.0');
  });

  it('removed by a raw/metadata.json rule', () => {
    for (const [label, value] of [
      ['io.openshift.upgrades.graph.previous.remove_regex', '4[.]1[.]0'],
      ['io.openshift.upgrades.graph.previous.remove', '4.1.0'],
    ] as const) {
      const e = explain({ rawMetadata: { '4.1.1': { [label]: value } } });
      expect(e).toMatchObject({ edge: false, code: 'removed-by-metadata' });
      expect(e.metadataRules).toEqual([{ version: '4.1.1', label, value }]);
    }
    const next = explain({ rawMetadata: { '4.1.0': { 'io.openshift.upgrades.graph.next.remove': '4.1.1' } } });
    expect(next.metadataRules).toEqual([
      { version: '4.1.0', label: 'io.openshift.upgrades.graph.next.remove', value: '4.1.1' },
    ]);
  });

  it('blocked by a blocked-edges file (a hard block)', () => {
    const e = explain({ blockedEdges: [{ id: '4.1.1', to: '4.1.1', from: '4[.]1[.]0' }] });
    expect(e).toMatchObject({
      edge: false,
      code: 'blocked',
      blockedBy: [{ id: '4.1.1', to: '4.1.1', from: '4[.]1[.]0' }],
    });
    expect(e.message).toContain('4.1.1.yaml');
  });
});
