// The snapshot derived after a channel-only write (graph/channelUpdate.ts) must be exactly what a
// build of the store gives: checked on the real conformance set after random channel edits of every
// kind (promote, withdraw, replace, create, delete, `+arch` entries, internal channels).
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readAndBuild, type BuildParts } from '../../../src/app/build/readAndBuild.js';
import { applyChannelChanges, type ChannelChange } from '../../../src/graph/channelUpdate.js';
import { channelView } from '../../../src/graph/view.js';
import { readGraphData } from '../../../src/sources/graphData.js';
import { Store, type StoreTx } from '../../../src/store/store.js';
import { conformanceAvailable, CONFORMANCE_DIR } from '../../support/conformance.js';

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
    store = await Store.open(':memory:');
    await store.importTree(read.tree!, { source: 'real' });
    // Two releases in no channel yet, so promotions also give a node its first channel (and label).
    for (const [version, previous] of [
      ['4.99.0', []],
      ['4.99.1', ['4.99.0']],
    ] as const)
      await store.write((tx) =>
        tx.releases.upsert(
          {
            version,
            arch: 'amd64',
            payload: `quay.example/ocp/release@sha256:${version.replace(/\D/g, '').padStart(64, '9')}`,
            metadata: { url: `https://errata.example/${version}` },
            previous: [...previous],
            next: [],
          },
          AT,
        ),
      );
    const all = await store.read((tx) => tx.releases.all());
    versions = [...new Set(all.map((r) => r.version)), '4.99.0', '4.99.1', '4.99.0', '4.99.1'];
  });

  const write = (fn: (tx: StoreTx) => Promise<unknown>): Promise<unknown> => store.write(fn);
  const change = (kind: 'public' | 'internal', name: string): Promise<ChannelChange> =>
    store.read(async (tx) => ({
      kind,
      name,
      channel: await tx.channels.get(kind, name),
      members: new Map((await tx.channels.members(kind, name)).map((m) => [m.version, new Date(m.addedAt)])),
    }));

  /** Asserts the derived parts equal a fresh build, views included. */
  async function expectSameAsBuild(derived: BuildParts): Promise<void> {
    const built = await readAndBuild(store, undefined, Date.now());
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

  it('equals a build after each of 25 random channel edits', async () => {
    const next = random(13);
    const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)]!;
    let parts = await readAndBuild(store, undefined, Date.now());
    let derivedCount = 0;
    for (let step = 0; step < 25; step++) {
      const channels = await store.read((tx) => tx.channels.all());
      const target = pick(step < 3 ? channels.filter((c) => !c.internal) : channels);
      const kind = target.internal ? 'internal' : 'public';
      const edits: Array<{ kind: 'public' | 'internal'; name: string }> = [{ kind, name: target.name }];
      const roll = next();
      if (step < 3) {
        // First, releases that were in no channel get one: their channels label is new.
        const entry = ['4.99.0', '4.99.1+amd64', '4.99.1'][step]!;
        await write((tx) => tx.channels.addVersion(kind, target.name, entry, AT));
      } else if (roll < 0.3) {
        const v = pick(versions);
        const entry = next() < 0.2 ? `${v}+${pick(['amd64', 'arm64'])}` : v;
        await write((tx) => tx.channels.addVersion(kind, target.name, entry, AT));
      } else if (roll < 0.5 && target.versions.length) {
        const [version, tombstone] = [pick(target.versions), next() < 0.5];
        await write((tx) => tx.channels.removeVersion(kind, target.name, version, AT, tombstone));
      } else if (roll < 0.7) {
        // Replace with a mix of its own versions and others.
        const mixed = [...target.versions.filter(() => next() < 0.7), pick(versions), pick(versions)];
        await write((tx) => tx.channels.upsert({ ...target, versions: [...new Set(mixed)] }, AT));
      } else if (roll < 0.85) {
        const name = `made-${step}`;
        const made = { name, internal: false, versions: [pick(versions), pick(versions)], tombstones: [] };
        await write((tx) => tx.channels.upsert(made, AT));
        edits.push({ kind: 'public', name });
      } else {
        await write((tx) => tx.channels.delete(kind, target.name));
      }
      const changes = [];
      for (const e of edits) changes.push(await change(e.kind, e.name));
      const update = applyChannelChanges(parts.graph, parts.input, parts.membership, changes);
      // Undefined means "build instead" (a release left its last public channel): a build is then the truth.
      if (update) {
        derivedCount += 1;
        parts = { ...update, buildSeconds: 0, withheld: 0 };
        await expectSameAsBuild(parts);
      } else parts = await readAndBuild(store, undefined, Date.now());
    }
    expect(derivedCount).toBeGreaterThan(12);
  });
});
