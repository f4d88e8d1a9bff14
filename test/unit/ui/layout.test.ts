// The web page's pure parts, in the fast tier: its URL state, its layered layout and version order
// (checked against semver on every version of the bundled data), and the catalog the server gives it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { catalogOf } from '../../../src/graph/catalog.js';
import { buildGraph } from '../../../src/graph/build.js';
import { BUNDLED_GRAPH_DATA } from '../../../src/config.js';
import { compareChannels, newestStable } from '../../../src/ui/channels.js';
import { arcCurvature, versionOrder, laneGap, layeredLayout, STEP } from '../../../src/ui/layout.js';
import { DEFAULT_STATE, parseState, stateQuery } from '../../../src/ui/urlState.js';
import { rel } from '../../support/releases.js';

describe('URL state', () => {
  it('round-trips every field and leaves defaults out', () => {
    const state = {
      arch: 'arm64',
      channel: 'stable-4.16',
      version: '4.16.3',
      allEdges: true,
      tab: 'path' as const,
      from: '4.15.0',
      to: '4.16.22',
      mode: 'eus' as const,
      accept: 'RiskA,RiskB',
      whyFrom: '4.16.3',
      whyTo: '4.16.1',
    };
    expect(parseState(stateQuery(state))).toEqual(state);
    expect(stateQuery(DEFAULT_STATE)).toBe('');
    expect(stateQuery({ ...DEFAULT_STATE, channel: 'fast-4.16' })).toBe('?channel=fast-4.16');
  });

  it('reads odd or hostile values as defaults, bounded in length', () => {
    const s = parseState(`?tab=<script>&mode=fastest&edges=yes&version=${'9'.repeat(5000)}`);
    expect(s.tab).toBe('version');
    expect(s.mode).toBe('fewest-hops');
    expect(s.allEdges).toBe(false);
    expect(s.version).toHaveLength(200);
  });
});

describe('layered layout', () => {
  const bundledVersions = (): string[] => {
    const dir = join(BUNDLED_GRAPH_DATA, 'channels');
    const out = new Set<string>();
    for (const file of readdirSync(dir))
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n'))
        if (/^- \d/.test(line)) out.add(line.slice(2).trim());
    return [...out];
  };

  it('orders versions as semver does, prereleases included', () => {
    const versions = [...bundledVersions(), '4.16.0-rc.2', '4.16.0-rc.10', '4.16.0-ec.1', '4.16.0-0.nightly', '4.9.1'];
    expect([...versions].sort(versionOrder)).toEqual([...versions].sort(semver.compare));
  });

  it('one lane per minor, oldest first, versions along it in order', () => {
    const layout = layeredLayout(['4.16.2', '4.15.10', '4.16.0', '4.15.9', '4.16.0-rc.1', '4.14.1']);
    expect([...layout].map(([v, p]) => [v, p.minor, p.lane, p.rank])).toEqual(
      expect.arrayContaining([
        ['4.14.1', '4.14', 0, 0],
        ['4.15.9', '4.15', 1, 0],
        ['4.15.10', '4.15', 1, 1],
        ['4.16.0-rc.1', '4.16', 2, 0],
        ['4.16.0', '4.16', 2, 1],
        ['4.16.2', '4.16', 2, 2],
      ]),
    );
    expect(layout.get('4.16.2')!.x).toBe(2 * STEP);
  });

  it('arcs flatten with their span and never reach the next lane', () => {
    const layout = layeredLayout(Array.from({ length: 200 }, (_, z) => `4.16.${z}`));
    const at = (z: number) => layout.get(`4.16.${z}`)!;
    expect(arcCurvature(at(0), at(1))).toBeGreaterThan(arcCurvature(at(0), at(100)));
    const longest = arcCurvature(at(0), at(199)) * 199 * STEP * 0.5; // a quadratic arc's peak
    expect(longest).toBeLessThan(laneGap(200, 3));
  });
});

describe('channel order on the page', () => {
  it('by the minor a channel tracks, as numbers, then by name; the newest stable opens first', () => {
    const names = ['stable-4.16', 'stable-4.9', 'eus-4.10', 'candidate-4.16', 'stable-4.10', 'odd'];
    expect([...names].sort(compareChannels)).toEqual([
      'odd',
      'stable-4.9',
      'eus-4.10',
      'stable-4.10',
      'candidate-4.16',
      'stable-4.16',
    ]);
    expect(newestStable(names)).toBe('stable-4.16');
    expect(newestStable(['fast-4.9', 'candidate-4.12'])).toBe('candidate-4.12');
  });
});

describe('catalog', () => {
  it("counts each public channel's releases per arch, in channel order", () => {
    const graph = buildGraph({
      releases: [rel('4.1.0'), rel('4.1.1', ['4.1.0']), rel('4.1.1', [], { arch: 'arm64' })],
      channels: [
        { name: 'stable-4.1', internal: false, versions: ['4.1.0', '4.1.1'], tombstones: [] },
        { name: 'candidate-4.1', internal: false, versions: ['4.1.1'], tombstones: [] },
        { name: 'empty-4.2', internal: false, versions: [], tombstones: [] },
      ],
      blockedEdges: [],
      rawMetadata: {},
    });
    expect(catalogOf(graph, ['stable-4.1', 'candidate-4.1', 'empty-4.2'])).toEqual({
      arches: ['amd64', 'arm64'],
      channels: [
        { name: 'candidate-4.1', releases: { amd64: 1, arm64: 1 } },
        { name: 'stable-4.1', releases: { amd64: 2, arm64: 1 } },
        { name: 'empty-4.2', releases: {} },
      ],
    });
  });
});
