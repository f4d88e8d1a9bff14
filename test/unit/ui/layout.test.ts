// The web page's pure parts, in the fast tier: its layered layout and version order (src/ui/layout.ts),
// checked against semver on every version of the bundled data. Its URL state is in urlState.test.ts, its
// channel order in channels.test.ts, the catalog the server gives it in test/unit/graph/catalog.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { BUNDLED_GRAPH_DATA } from '../../../src/config.js';
import { arcCurvature, versionOrder, laneGap, layeredLayout, STEP } from '../../../src/ui/layout.js';

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
