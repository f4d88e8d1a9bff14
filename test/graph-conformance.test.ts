// The pure core against the real public captures: build from the real graph-data, view each channel.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../src/graph/build.js';
import { channelView } from '../src/graph/view.js';
import { readGraphData } from '../src/sources/graphData.js';
import { CONFORMANCE_DIR, conformanceAvailable, expectedChannels, normalise, realSets } from './support/conformance.js';

describe.runIf(conformanceAvailable())('graph build on real data', () => {
  for (const set of realSets()) {
    it(`${set}: every captured channel reproduces exactly`, async () => {
      const read = await readGraphData(join(CONFORMANCE_DIR, set, 'graph-data'));
      expect(read.errors).toEqual([]);
      const graph = buildGraph(read.tree!);
      let exact = 0;
      const expected = expectedChannels(set);
      const mismatches: string[] = [];
      for (const { channel, doc } of expected) {
        const got = normalise(channelView(graph, channel, 'amd64'));
        const want = normalise(doc);
        const diffs = (Object.keys(want) as Array<keyof typeof want>).filter((k) => JSON.stringify(got[k]) !== JSON.stringify(want[k]));
        if (diffs.length === 0) exact += 1;
        else mismatches.push(`${channel}: ${diffs.map((k) => `${k} ${sample(got[k], want[k])}`).join('; ')}`);
      }
      console.log(`conformance (build): ${exact}/${expected.length} channels exact`);
      expect(mismatches).toEqual([]);
    });
  }
});

function sample(got: unknown, want: unknown): string {
  const g = new Map(Object.entries(got as object).map(([k, v]) => [Array.isArray(got) ? String(v) : k, JSON.stringify(v)]));
  const w = new Map(Object.entries(want as object).map(([k, v]) => [Array.isArray(want) ? String(v) : k, JSON.stringify(v)]));
  const extra = [...g].filter(([k, v]) => w.get(k) !== v).slice(0, 3).map(([k, v]) => `+${k}=${v}`);
  const missing = [...w].filter(([k, v]) => g.get(k) !== v).slice(0, 3).map(([k, v]) => `-${k}=${v}`);
  return [...extra, ...missing].join(' ');
}
