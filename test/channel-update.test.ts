// The snapshot derived after a channel-only write (graph/channelUpdate.ts) must be exactly what a
// build of the store gives: checked on the real conformance set after random channel edits of every
// kind (promote, withdraw, replace, create, delete, `+arch` entries, internal channels).
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readAndBuild, type BuildParts } from '../src/app/build/readAndBuild.js';
import { applyChannelChanges, type ChannelChange } from '../src/graph/channelUpdate.js';
import { channelView } from '../src/graph/view.js';
import { readGraphData } from '../src/sources/graphData.js';
import { Store } from '../src/store/store.js';
import { conformanceAvailable, CONFORMANCE_DIR } from './support/conformance.js';

const available = conformanceAvailable();
const AT = '2026-01-01T00:00:00.000Z';

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe.skipIf(!available)('channel-only updates on the real set', () => {
  let store: Store;
  let versions: string[];

  beforeAll(async () => {
    const read = await readGraphData(join(CONFORMANCE_DIR, 'real-2024-08-09', 'graph-data'));
    expect(read.errors).toEqual([]);
    store = Store.open(':memory:');
    store.importTree(read.tree!, { source: 'real' });
    // Two releases in no channel yet, so promotions also give a node its first channel (and label).
    for (const [version, previous] of [
      ['4.99.0', []],
      ['4.99.1', ['4.99.0']],
    ] as const)
      store.releases.upsert(
        {
          version,
          arch: 'amd64',
          payload: `quay.example/ocp/release@sha256:${version.replace(/\D/g, '').padStart(64, '9')}`,
          metadata: { url: `https://errata.example/${version}` },
          previous: [...previous],
          next: [],
        },
        AT,
      );
    versions = [...new Set(store.releases.all().map((r) => r.version)), '4.99.0', '4.99.1', '4.99.0', '4.99.1'];
  });

  const change = (kind: 'public' | 'internal', name: string): ChannelChange => ({
    kind,
    name,
    channel: store.channels.get(kind, name),
    members: new Map(store.channels.members(kind, name).map((m) => [m.version, new Date(m.addedAt)])),
  });

  /** Asserts the derived parts equal a fresh build, views included. */
  function expectSameAsBuild(derived: BuildParts): void {
    const built = readAndBuild(store, undefined);
    expect(derived.input).toEqual(built.input);
    expect(derived.membership).toEqual(built.membership);
    expect(derived.graph).toEqual(built.graph);
    expect(JSON.stringify(derived.graph.nodes)).toBe(JSON.stringify(built.graph.nodes)); // key order too
    for (const c of built.input.channels.filter((c) => !c.internal))
      for (const arch of ['amd64', 'arm64', 'multi'])
        expect(JSON.stringify(channelView(derived.graph, c.name, arch))).toBe(
          JSON.stringify(channelView(built.graph, c.name, arch)),
        );
  }

  it('equals a build after each of 25 random channel edits', () => {
    const next = random(13);
    const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)]!;
    let parts = readAndBuild(store, undefined);
    let derivedCount = 0;
    for (let step = 0; step < 25; step++) {
      const channels = store.channels.all();
      const target = pick(step < 3 ? channels.filter((c) => !c.internal) : channels);
      const kind = target.internal ? 'internal' : 'public';
      const edits: Array<{ kind: 'public' | 'internal'; name: string }> = [{ kind, name: target.name }];
      const roll = next();
      if (step < 3) {
        // First, releases that were in no channel get one: their channels label is new.
        const entry = ['4.99.0', '4.99.1+amd64', '4.99.1'][step]!;
        store.channels.addVersion(kind, target.name, entry, AT);
      } else if (roll < 0.3) {
        const v = pick(versions);
        store.channels.addVersion(kind, target.name, next() < 0.2 ? `${v}+${pick(['amd64', 'arm64'])}` : v, AT);
      } else if (roll < 0.5 && target.versions.length) {
        store.channels.removeVersion(kind, target.name, pick(target.versions), AT, next() < 0.5);
      } else if (roll < 0.7) {
        // Replace with a mix of its own versions and others.
        const mixed = [...target.versions.filter(() => next() < 0.7), pick(versions), pick(versions)];
        store.channels.upsert({ ...target, versions: [...new Set(mixed)] }, AT);
      } else if (roll < 0.85) {
        const name = `made-${step}`;
        store.channels.upsert(
          { name, internal: false, versions: [pick(versions), pick(versions)], tombstones: [] },
          AT,
        );
        edits.push({ kind: 'public', name });
      } else {
        store.channels.delete(kind, target.name);
      }
      const update = applyChannelChanges(
        parts.graph,
        parts.input,
        parts.membership,
        edits.map((e) => change(e.kind, e.name)),
      );
      // Undefined means "build instead" (a release left its last public channel): a build is then the truth.
      if (update) {
        derivedCount += 1;
        parts = { ...update, buildSeconds: 0 };
        expectSameAsBuild(parts);
      } else parts = readAndBuild(store, undefined);
    }
    expect(derivedCount).toBeGreaterThan(12);
  });
});
