// The path planner's ranking, EUS stops, channel plan and no-path reasons, on small constructed inputs.
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../../src/graph/build.js';
import type { Channel, GraphInput, Risk } from '../../../src/graph/model.js';
import { channelPlan, planPaths, type PathQuery } from '../../../src/graph/paths.js';
import { rel } from '../../support/releases.js';

const chan = (name: string, versions: string[]): Channel => ({ name, internal: false, versions, tombstones: [] });
const risk: Risk = {
  url: 'https://issues.example/R',
  name: 'R',
  message: 'It breaks.',
  matchingRules: [{ type: 'Always' }],
};

function plan(input: Partial<GraphInput>, q: Partial<PathQuery> & { from: string; to: string }) {
  const full: GraphInput = { releases: [], channels: [], blockedEdges: [], rawMetadata: {}, ...input };
  return planPaths(buildGraph(full), { arch: 'amd64', ...q });
}

describe('path ranking', () => {
  // 4.1.0 -> 4.1.2 is conditional; 4.1.0 -> 4.1.1 -> 4.1.2 is recommended.
  const input: Partial<GraphInput> = {
    releases: [rel('4.1.0'), rel('4.1.1', ['4.1.0']), rel('4.1.2', ['4.1.0', '4.1.1'])],
    channels: [chan('stable-4.1', ['4.1.0', '4.1.1', '4.1.2'])],
    blockedEdges: [{ id: '4.1.2-R', to: '4.1.2', from: '4[.]1[.]0', risk }],
  };

  it('a fully recommended path first, then the shorter conditional one', () => {
    const a = plan(input, { from: '4.1.0', to: '4.1.2' });
    expect(a.paths.map((p) => p.hops.map((h) => h.to))).toEqual([['4.1.1', '4.1.2'], ['4.1.2']]);
    expect(a.paths[1]).toMatchObject({ risksNotAccepted: ['R'], hops: [{ recommended: false, risks: [risk] }] });
  });

  it('with the risk accepted, fewest hops first', () => {
    const a = plan(input, { from: '4.1.0', to: '4.1.2', acceptRisks: ['R'] });
    expect(a.paths[0]!.hops.map((h) => h.to)).toEqual(['4.1.2']);
    expect(a.paths[0]!.risksNotAccepted).toEqual([]);
  });

  it('among paths of as many hops, one without a prerelease stop first', () => {
    const a = plan(
      {
        releases: [
          rel('4.1.0'),
          rel('4.2.0-rc.1', ['4.1.0']),
          rel('4.1.5', ['4.1.0']),
          rel('4.2.0', ['4.2.0-rc.1', '4.1.5']),
        ],
        channels: [chan('candidate-4.2', ['4.1.0', '4.1.5', '4.2.0-rc.1', '4.2.0'])],
      },
      { from: '4.1.0', to: '4.2.0' },
    );
    expect(a.paths.map((p) => p.hops.map((h) => h.to))).toEqual([
      ['4.1.5', '4.2.0'],
      ['4.2.0-rc.1', '4.2.0'],
    ]);
  });

  it('limit caps the answer', () => {
    expect(plan(input, { from: '4.1.0', to: '4.1.2', limit: 1 }).paths).toHaveLength(1);
  });
});

describe('EUS mode', () => {
  // GA: 4.14.0 -> 4.14.1 -> 4.15.0 -> 4.16.1 (3 hops), and 4.15.0 -> 4.16.0 -> 4.16.1. Shorter, through a
  // prerelease only in candidate-4.16: 4.14.0 -> 4.16.0-rc.1 -> 4.16.1.
  const releases = [
    rel('4.14.0'),
    rel('4.14.1', ['4.14.0']),
    rel('4.15.0', ['4.14.1']),
    rel('4.16.0-rc.1', ['4.14.0']),
    rel('4.16.0', ['4.15.0', '4.16.0-rc.1']),
    rel('4.16.1', ['4.15.0', '4.16.0', '4.16.0-rc.1']),
  ];
  const ga = ['4.14.0', '4.14.1', '4.15.0', '4.16.0', '4.16.1'];
  const channels = [
    chan('candidate-4.16', [...ga, '4.16.0-rc.1']),
    chan('stable-4.16', ga.slice(2)),
    chan('eus-4.16', ga),
  ];
  const stops = (a: ReturnType<typeof plan>) => a.paths.map((p) => p.hops.map((h) => h.to));

  it('goes through the odd minor on GA releases, on the eus- channel, where fewest hops would take a prerelease', () => {
    expect(stops(plan({ releases, channels }, { from: '4.14.0', to: '4.16.1', limit: 1 }))).toEqual([
      ['4.16.0-rc.1', '4.16.1'],
    ]);
    const a = plan({ releases, channels }, { from: '4.14.0', to: '4.16.1', mode: 'eus' });
    expect(stops(a)[0]).toEqual(['4.14.1', '4.15.0', '4.16.1']);
    expect(a.paths[0]!.hops.map((h) => h.channel)).toEqual(['eus-4.16', 'eus-4.16', 'eus-4.16']);
    for (const path of a.paths) expect(path.hops.some((h) => h.to.includes('-'))).toBe(false); // candidate not asked
    expect(a.notes).toEqual([expect.stringContaining('pause the worker machine config pools')]);
  });

  it('takes a longer path of recommended edges over a conditional one', () => {
    const blockedEdges = [{ id: '4.16.1-R', to: '4.16.1', from: '4[.]15[.]0', risk }];
    const a = plan({ releases, channels, blockedEdges }, { from: '4.14.0', to: '4.16.1', mode: 'eus' });
    expect(stops(a)[0]).toEqual(['4.14.1', '4.15.0', '4.16.0', '4.16.1']);
    expect(a.paths[0]!.risksNotAccepted).toEqual([]);
  });

  it('uses a candidate channel only when asked, and a prerelease stop then only when no GA path exists, saying so', () => {
    const noGa = releases.filter((r) => r.version !== '4.15.0');
    const without = plan({ releases: noGa, channels }, { from: '4.14.0', to: '4.16.1', mode: 'eus' });
    expect(without.reason).toMatchObject({ code: 'no-path' });
    expect(without.reason!.message).toContain('channel=candidate-');

    const asked = { from: '4.14.0', to: '4.16.1', mode: 'eus' as const, channel: 'candidate-4.16' };
    expect(stops(plan({ releases, channels }, asked))[0]).toEqual(['4.14.1', '4.15.0', '4.16.1']);
    const a = plan({ releases: noGa, channels }, asked);
    expect(stops(a)[0]).toEqual(['4.16.0-rc.1', '4.16.1']);
    expect(a.notes.join('\n')).toContain('this one stops on 4.16.0-rc.1, a prerelease');
  });

  it('would rather cross a conditional edge than stop on a prerelease, and says every GA path has the risk', () => {
    const blockedEdges = ['4.16.0', '4.16.1'].map((to) => ({ id: `${to}-R`, to, from: '4[.]15[.]0', risk }));
    const asked = { from: '4.14.0', to: '4.16.1', mode: 'eus' as const, channel: 'candidate-4.16' };
    const a = plan({ releases, channels, blockedEdges }, asked);
    expect(stops(a)[0]).toEqual(['4.14.1', '4.15.0', '4.16.1']);
    expect(a.notes.join('\n')).toContain(
      'every path through GA releases crosses a conditional edge whose risks are not accepted: R',
    );
  });

  it('a source or target in no eus-, stable- or fast- channel: the reason says candidate channels are asked for', () => {
    const a = plan({ releases, channels }, { from: '4.16.0-rc.1', to: '4.16.1', mode: 'eus' });
    expect(a.reason).toMatchObject({ code: 'source-not-in-channel' });
    expect(a.reason!.message).toContain('in no eus-, stable- or fast- channel of amd64');
  });

  it('notes an odd-minor end and a span of more than two minors', () => {
    const a = plan({ releases, channels }, { from: '4.15.0', to: '4.16.1', mode: 'eus' });
    expect(a.notes).toContain('4.15.0 is on an odd minor: EUS releases are even minors');
    const wide = plan(
      { releases: [rel('4.12.0'), rel('4.16.0', ['4.12.0'])], channels: [chan('eus-4.16', ['4.12.0', '4.16.0'])] },
      { from: '4.12.0', to: '4.16.0', mode: 'eus' },
    );
    expect(wide.notes.join('\n')).toContain('spans 4 minors');
  });
});

describe('channels', () => {
  it('a hop names every channel with the edge; the plan switches as little as possible', () => {
    expect(channelPlan([['fast-4.1', 'stable-4.1'], ['stable-4.1', 'stable-4.2'], ['stable-4.2']])).toEqual([
      'stable-4.1',
      'stable-4.1',
      'stable-4.2',
    ]);
    expect(channelPlan([['fast-4.1'], ['fast-4.1', 'stable-4.2'], ['stable-4.2'], ['fast-4.1', 'stable-4.2']])).toEqual(
      ['fast-4.1', 'fast-4.1', 'stable-4.2', 'stable-4.2'],
    );
    const a = plan(
      {
        releases: [rel('4.1.0'), rel('4.1.1', ['4.1.0']), rel('4.2.0', ['4.1.1'])],
        channels: [
          chan('stable-4.1', ['4.1.0', '4.1.1']),
          chan('stable-4.2', ['4.1.1', '4.2.0']),
          chan('fast-4.1', ['4.1.0', '4.1.1']),
        ],
      },
      { from: '4.1.0', to: '4.2.0' },
    );
    expect(a.paths[0]!.hops.map((h) => [h.channels, h.channel])).toEqual([
      [['fast-4.1', 'stable-4.1'], 'stable-4.1'],
      [['stable-4.2'], 'stable-4.2'],
    ]);
    expect(a.paths[0]!.channelSwitches).toBe(1);
  });
});

describe('no path', () => {
  const input: Partial<GraphInput> = {
    releases: [rel('4.1.0'), rel('4.1.1', ['4.1.0']), rel('4.2.0'), rel('4.3.0')],
    channels: [chan('stable-4.2', ['4.1.0', '4.1.1', '4.2.0'])],
  };
  it.each([
    ['4.9.0', '4.2.0', 'source-not-a-release', '4.9.0 is not a release of amd64'],
    ['4.1.0', '4.9.0', 'target-not-a-release', '4.9.0 is not a release of amd64'],
    ['4.1.0', '4.3.0', 'target-not-in-channel', '4.3.0 is in no channel of amd64'],
    ['4.1.0', '4.2.0', 'no-path', 'the furthest minor reachable from 4.1.0 is 4.1 (4.1.1)'],
    ['4.1.0', '4.1.0', 'same-version', '4.1.0 is already the target version'],
  ])('%s -> %s: %s', (from, to, code, message) => {
    const a = plan(input, { from, to });
    expect(a.paths).toEqual([]);
    expect(a.reason!.code).toBe(code);
    expect(a.reason!.message).toContain(message);
  });

  it('names a channel no release is in, with the closest name when one is near', () => {
    expect(plan(input, { from: '4.1.0', to: '4.2.0', channel: 'stabel-4.2' }).reason).toEqual({
      code: 'unknown-channel',
      message: 'no release is in a channel named stabel-4.2: did you mean stable-4.2?',
    });
    expect(plan(input, { from: '4.1.0', to: '4.2.0', channel: 'candidate-4.9' }).reason).toEqual({
      code: 'unknown-channel',
      message: 'no release is in a channel named candidate-4.9',
    });
  });

  it('an unknown channel or arch: the reason, nothing cached for it', () => {
    const a = plan(input, { from: '4.1.0', to: '4.1.1', channel: 'stable-9.9' });
    expect(a.reason).toEqual({ code: 'unknown-channel', message: 'no release is in a channel named stable-9.9' });
    // A channel that exists but lacks the version says so.
    expect(plan(input, { from: '4.3.0', to: '4.2.0', channel: 'stable-4.2' }).reason).toEqual({
      code: 'source-not-in-channel',
      message: '4.3.0 is not in channel stable-4.2 (amd64)',
    });
    const b = plan(input, { from: '4.1.0', to: '4.1.1', arch: 'sparc' });
    expect(b.reason).toEqual({ code: 'source-not-a-release', message: '4.1.0 is not a release of sparc' });
  });
});
