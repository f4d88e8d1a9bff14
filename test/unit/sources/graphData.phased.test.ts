// Graph-data 2.x: channel files with phasedRollouts and timed versions, in the 1.x form and in the
// enhancement's form (several channels sharing one list of versions), each mistake named by file and
// field; the same keys in a 1.x tree are refused, saying they need 2.x.
import { afterEach, describe, expect, it } from 'vitest';
import { readGraphData } from '../../../src/sources/graphData.js';
import { formatProblem } from '../../../src/validation/problems.js';
import { tempDir } from '../../support/cleanup.js';
import { writeTree } from '../../support/trees.js';

let dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  dirs.forEach((d) => d.remove());
  dirs = [];
});
const read = (files: Record<string, string | undefined>) => {
  const d = tempDir();
  dirs.push(d);
  return readGraphData(writeTree(d.path, files));
};
const problems = async (files: Record<string, string | undefined>): Promise<string[]> => {
  const r = await read(files);
  expect(r.tree).toBeUndefined();
  return r.errors.map(formatProblem);
};

const PHASED =
  'name: stable-4.1\nphasedRollouts:\n- fromVersion: patch\n  duration: P2D\n- duration: PT6H\n' +
  'versions:\n- 4.1.0\n- name: 4.1.1\n  start: 2026-05-12T00:00Z\n';

describe('graph-data 2.x phased rollouts', () => {
  it('reads phasedRollouts and timed versions: the versions by name, the starts and rules kept', async () => {
    const r = await read({ version: '2.0.0\n', 'channels/stable-4.1.yaml': PHASED });
    expect(r.errors).toEqual([]);
    expect(r.tree!.schemaVersion).toBe('2.0.0');
    expect(r.tree!.channels.find((c) => c.name === 'stable-4.1')).toEqual({
      name: 'stable-4.1',
      internal: false,
      versions: ['4.1.0', '4.1.1'],
      tombstones: [],
      feeder: undefined,
      phasing: {
        rules: [{ fromVersion: 'patch', duration: 'P2D' }, { duration: 'PT6H' }],
        starts: { '4.1.1': '2026-05-12T00:00Z' },
      },
    });
  });

  it('reads the enhancement’s form: several channels, each with its rules, sharing the versions', async () => {
    const r = await read({
      version: '2.1.0\n',
      'channels/stable-4.1.yaml': undefined,
      'channels/4.1.yaml':
        'channels:\n- name: fast-4.1\n- name: stable-4.1\n  phasedRollouts:\n  - fromVersion: minor\n    duration: P14D\n' +
        'versions:\n- 4.1.0\n- name: 4.1.1\n  start: 2026-05-12T00:00:00Z\n',
    });
    expect(r.errors).toEqual([]);
    const byName = new Map(r.tree!.channels.map((c) => [c.name, c]));
    expect(byName.get('fast-4.1')!.phasing).toEqual({ rules: [], starts: { '4.1.1': '2026-05-12T00:00:00Z' } });
    expect(byName.get('stable-4.1')!.phasing!.rules).toEqual([{ fromVersion: 'minor', duration: 'P14D' }]);
    expect(byName.get('stable-4.1')!.versions).toEqual(['4.1.0', '4.1.1']);
  });

  it('names every mistake: a bad start, a bad duration, a criterion twice, two defaults, name and channels', async () => {
    expect(
      await problems({
        version: '2.0.0\n',
        'channels/stable-4.1.yaml':
          'name: stable-4.1\nphasedRollouts:\n- fromVersion: patch\n  duration: two days\n- fromVersion: patch\n  duration: P1D\n' +
          '- duration: P1D\n- duration: P2D\nversions:\n- name: 4.1.1\n  start: next tuesday\n',
      }),
    ).toEqual([
      "channels/stable-4.1.yaml: versions[0].start: 'next tuesday' is not an RFC 3339 date-time such as 2020-05-12T00:00Z",
      "channels/stable-4.1.yaml: phasedRollouts[0].duration: 'two days' is not an ISO-8601 duration such as P2D",
      "channels/stable-4.1.yaml: phasedRollouts[1]: fromVersion 'patch' appears twice",
      'channels/stable-4.1.yaml: phasedRollouts[3]: a second rule without fromVersion (the default)',
    ]);
    expect(
      await problems({
        version: '2.0.0\n',
        'channels/stable-4.1.yaml': 'name: stable-4.1\nchannels:\n- name: fast-4.1\nversions: []\n',
      }),
    ).toEqual([
      'channels/stable-4.1.yaml: name: give either name (one channel) or channels (several sharing these versions), not both or neither',
    ]);
  });

  it('refuses a window longer than 90 days', async () => {
    expect(
      await problems({
        version: '2.0.0\n',
        'channels/stable-4.1.yaml': 'name: stable-4.1\nphasedRollouts:\n- duration: P300000Y\nversions: [4.1.0]\n',
      }),
    ).toEqual(["channels/stable-4.1.yaml: phasedRollouts[0].duration: 'P300000Y' is longer than 90 days"]);
  });

  it('keeps an unknown fromVersion (it matches no edge), and refuses the 2.x keys in a 1.x tree', async () => {
    const r = await read({
      version: '2.0.0\n',
      'channels/stable-4.1.yaml':
        'name: stable-4.1\nphasedRollouts:\n- fromVersion: z-stream\n  duration: P1D\nversions: [4.1.0]\n',
    });
    expect(r.errors).toEqual([]);
    expect(await problems({ 'channels/stable-4.1.yaml': PHASED })).toEqual([
      'channels/stable-4.1.yaml: -: phasedRollouts, channels and versions with a start need graph-data 2.x; the version file says 1.x',
    ]);
  });

  it('reads a 1.x tree as before, and a 2.x tree without phasing like a 1.x one', async () => {
    const v1 = await read({});
    const v2 = await read({ version: '2.0.0\n' });
    expect(v2.tree!.channels).toEqual(v1.tree!.channels);
  });
});
