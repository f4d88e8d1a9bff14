// Graph-data 2.x's phased rollouts as served: timed versions left out until their start, the rollouts
// each channel's rules make (patch, minor, the default for the rest), and which rollouts govern when the
// API and graph-data both declare some.
import { describe, expect, it } from 'vitest';
import type { Channel } from '../../../src/graph/model.js';
import { channelsAt, governingRollouts, graphDataRollouts, sourcesPattern } from '../../../src/graph/phasing.js';
import { governs, type Rollout } from '../../../src/graph/rollouts.js';

const START = '2026-05-12T00:00Z';
const channel = (
  rules: Channel['phasing'] extends infer P ? (P extends { rules: infer R } ? R : never) : never,
): Channel => ({
  name: 'stable-4.16',
  internal: false,
  versions: ['4.15.9', '4.16.1', '4.16.2'],
  tombstones: [],
  phasing: { rules, starts: { '4.16.2': START } },
});

describe('channelsAt', () => {
  it('leaves a timed version out until its start, and says when the next one starts', () => {
    const c = channel([]);
    const before = channelsAt([c], Date.parse(START) - 1);
    expect(before.channels[0]!.versions).toEqual(['4.15.9', '4.16.1']);
    expect(before.nextStart).toBe(Date.parse(START));
    const at = channelsAt([c], Date.parse(START));
    expect(at.channels[0]).toBe(c);
    expect(at.nextStart).toBeUndefined();
  });
});

describe('sourcesPattern', () => {
  it('finds the sources of each kind of edge', () => {
    const test = (kinds: Array<'patch' | 'minor' | 'major'>, from: string) =>
      governs({ to: '4.16.2', from: sourcesPattern('4.16.2', kinds)! }, from, '4.16.2');
    expect(test(['patch'], '4.16.1')).toBe(true);
    expect(test(['patch'], '4.15.9')).toBe(false);
    expect(test(['minor'], '4.15.9')).toBe(true);
    expect(test(['minor'], '4.1.0')).toBe(true);
    expect(test(['minor'], '4.16.1')).toBe(false);
    expect(test(['minor'], '4.160.1')).toBe(false);
    expect(test(['major'], '3.11.0')).toBe(true);
    expect(test(['patch', 'minor'], '4.15.9')).toBe(true);
    expect(sourcesPattern('4.0.1', ['minor'])).toBeUndefined();
  });
});

describe('graphDataRollouts', () => {
  it('makes a rollout per rule that phases some edge; the default takes the kinds no rule names', () => {
    const rs = graphDataRollouts([
      channel([
        { fromVersion: 'patch', duration: 'P2D' },
        { fromVersion: 'no-such-kind', duration: 'P9D' },
        { duration: 'P14D' },
      ]),
    ]);
    expect(rs.map((r) => [r.to, r.duration, r.from])).toEqual([
      ['4.16.2', 'P2D', '^4[.]16[.]'],
      ['4.16.2', 'P14D', '^(?:4[.](?:0|1|2|3|4|5|6|7|8|9|10|11|12|13|14|15)[.]|(?:0|1|2|3)[.])'],
    ]);
    expect(rs.every((r) => r.start === Date.parse(START) && r.id.startsWith('gd-') && r.state === 'active')).toBe(true);
    // The same declaration gives the same ids, wherever it is derived.
    expect(graphDataRollouts([channel([{ fromVersion: 'patch', duration: 'P2D' }])])[0]!.id).toBe(rs[0]!.id);
    // A rule keeps its id when the other rules change (a halt stored under it stays with it).
    const before = graphDataRollouts([channel([{ duration: 'P14D' }])]);
    expect(before.map((r) => r.from)).toEqual([
      '^(?:4[.]16[.]|4[.](?:0|1|2|3|4|5|6|7|8|9|10|11|12|13|14|15)[.]|(?:0|1|2|3)[.])',
    ]);
    expect(before[0]!.id).toBe(rs[1]!.id);
  });

  it('matches nothing with a fromVersion other than patch and minor, and makes one rollout of per-arch entries', () => {
    expect(graphDataRollouts([channel([{ fromVersion: 'major', duration: 'P2D' }])])).toEqual([]);
    const arches: Channel = {
      ...channel([{ duration: 'P1D' }]),
      versions: ['4.16.1', '4.16.2+amd64', '4.16.2+arm64'],
      phasing: { rules: [{ duration: 'P1D' }], starts: { '4.16.2+amd64': START, '4.16.2+arm64': START } },
    };
    expect(graphDataRollouts([arches]).map((r) => r.to)).toEqual(['4.16.2']);
  });

  it('phases nothing with no rule, or with a zero duration (every edge at the start)', () => {
    expect(graphDataRollouts([channel([])])).toEqual([]);
    expect(graphDataRollouts([channel([{ duration: 'P0D' }])])).toEqual([]);
  });
});

describe('governingRollouts', () => {
  const api = (id: string, createdAt: number, to = '4.16.2'): Rollout =>
    ({ ...graphDataRollouts([channel([{ duration: 'P1D' }])])[0]!, id, to, createdAt, from: null }) as Rollout;
  it('keeps the newest API rollout per channel and target, and each graph-data one in its stored state', () => {
    const [derived] = graphDataRollouts([channel([{ duration: 'P1D' }])]);
    const halted = { ...derived!, state: 'halted' as const, reason: 'failures', duration: 'P9D', durationMs: 1 };
    const got = governingRollouts([api('r-old', 1, '4.16.1'), api('r-new', 2, '4.16.1'), halted], [derived!]);
    expect(got.map((r) => r.id).sort()).toEqual([derived!.id, 'r-new'].sort());
    // Its state stored, its declaration graph-data's.
    expect(got.find((r) => r.id === derived!.id)).toMatchObject({
      state: 'halted',
      reason: 'failures',
      duration: 'P1D',
    });
    // Dropped from graph-data: gone, halted or not.
    expect(governingRollouts([halted], []).map((r) => r.id)).toEqual([]);
    // An API rollout of the same channel and target overrides graph-data's, cancelled or not.
    const cancelled = { ...derived!, state: 'cancelled' as const };
    expect(governingRollouts([cancelled, api('r-api', 3)], [derived!]).map((r) => r.id)).toEqual(['r-api']);
  });
});
