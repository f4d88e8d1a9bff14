// What to mirror for clusters at some versions to reach a target: the planned path's releases, sources and
// target, each once, and the ImageSetConfiguration that names exactly those.
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../../src/graph/build.js';
import type { Channel, GraphInput } from '../../../src/graph/model.js';
import { planMirror, type MirrorPlanRequest } from '../../../src/graph/mirrorPlan.js';
import { rel } from '../../support/releases.js';

const chan = (name: string, versions: string[]): Channel => ({ name, internal: false, versions, tombstones: [] });

// EUS: 4.12.0 -> 4.13.0 -> 4.14.0 -> 4.14.1 through the odd minor; fewer hops only through a prerelease
// of candidate-4.14: 4.12.0 -> 4.14.0-rc.0 -> 4.14.1.
const ga = ['4.12.0', '4.12.1', '4.13.0', '4.14.0', '4.14.1'];
const input: GraphInput = {
  releases: [
    rel('4.12.0'),
    rel('4.12.1', ['4.12.0']),
    rel('4.13.0', ['4.12.0']),
    rel('4.14.0-rc.0', ['4.12.0']),
    rel('4.14.0', ['4.13.0']),
    rel('4.14.1', ['4.14.0', '4.14.0-rc.0']),
    rel('4.11.9'),
  ],
  channels: [
    chan('candidate-4.14', [...ga, '4.14.0-rc.0']),
    chan('eus-4.14', ga),
    chan('stable-4.14', ['4.13.0', '4.14.0', '4.14.1']),
  ],
  blockedEdges: [],
  rawMetadata: {},
};
const full = buildGraph(input);
const plan = (q: Partial<MirrorPlanRequest>) =>
  planMirror(full, { to: '4.14.1', from: [], arch: 'amd64', mode: 'fewest-hops', ...q });
const payloadOf = (v: string) => full.nodes.find((n) => n.version === v && n.arch === 'amd64')!.payload;

describe('mirror plan', () => {
  it('mirrors the sources, every stop and the target of each best path, once each, in version order', () => {
    const p = plan({ from: ['4.12.0', '4.13.0'], mode: 'eus' });
    expect(p.sources).toEqual([
      { from: '4.12.0', path: ['4.12.0', '4.13.0', '4.14.0', '4.14.1'] },
      { from: '4.13.0', path: ['4.13.0', '4.14.0', '4.14.1'] },
    ]);
    expect(p.releases.map((r) => [r.version, r.role])).toEqual([
      ['4.12.0', 'source'],
      ['4.13.0', 'intermediate'],
      ['4.14.0', 'intermediate'],
      ['4.14.1', 'target'],
    ]);
    expect(p.releases.every((r) => r.payload === payloadOf(r.version))).toBe(true);
    expect(p.notes.join()).toContain('pause the worker machine config pools');
  });

  it('an EUS plan mirrors no prerelease where GA releases reach the target; fewest hops may', () => {
    const versions = (q: Partial<MirrorPlanRequest>) => plan({ from: ['4.12.0'], ...q }).releases.map((r) => r.version);
    expect(versions({})).toEqual(['4.12.0', '4.14.0-rc.0', '4.14.1']);
    expect(versions({ mode: 'eus' })).toEqual(['4.12.0', '4.13.0', '4.14.0', '4.14.1']);
  });

  it('writes an oc-mirror v2 ImageSetConfiguration naming each release alone, in the channel its hop uses', () => {
    const p = plan({ from: ['4.12.0'], mode: 'eus', channel: 'eus-4.14' });
    expect(p.imageSetConfiguration).toEqual({
      apiVersion: 'mirror.openshift.io/v2alpha1',
      kind: 'ImageSetConfiguration',
      mirror: {
        platform: {
          architectures: ['amd64'],
          graph: true,
          channels: ['4.12.0', '4.13.0', '4.14.0', '4.14.1'].map((v) => ({
            name: 'eus-4.14',
            minVersion: v,
            maxVersion: v,
          })),
        },
      },
    });
  });

  it('says why a source has no path, and still plans the target', () => {
    const p = plan({ from: ['4.11.9', '4.9.9'] });
    expect(p.sources).toEqual([
      { from: '4.11.9', reason: { code: 'source-not-in-channel', message: '4.11.9 is in no channel of amd64' } },
      { from: '4.9.9', reason: { code: 'source-not-a-release', message: '4.9.9 is not a release of amd64' } },
    ]);
    expect(p.releases).toEqual([
      { version: '4.14.1', payload: payloadOf('4.14.1'), channel: 'stable-4.14', role: 'target' },
    ]);
  });

  it('without sources, the target alone; a target in no channel, nothing and a note', () => {
    expect(plan({}).releases.map((r) => r.version)).toEqual(['4.14.1']);
    const none = plan({ to: '4.11.9' });
    expect(none.releases).toEqual([]);
    expect(none.notes).toEqual(['4.11.9 is in no channel of amd64: nothing to mirror for it']);
  });
});
