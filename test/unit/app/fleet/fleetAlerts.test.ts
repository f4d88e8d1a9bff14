// Which clusters count as newly exposed to a risk or newly stranded: the fleet's state by risk, channel
// and arch, and the changes between two states.
import { describe, expect, it } from 'vitest';
import { alertChanges, alertStateOf } from '../../../../src/app/fleet/fleetAlerts.js';
import type { Standing } from '../../../../src/app/fleet/fleetIndex.js';

/** What the graph shows each version of stable-4.16/amd64; other channels are unknown. */
const shown: Record<string, Standing> = {
  '4.16.1': {
    stranded: undefined,
    recommended: ['4.16.2'],
    conditional: [
      { version: '4.16.3', risks: ['RiskA', 'RiskB'] },
      { version: '4.16.4', risks: ['RiskA'] },
    ],
  },
  '4.16.2': { stranded: undefined, recommended: [], conditional: [{ version: '4.16.3', risks: ['RiskB'] }] },
};
const index = {
  standing(channel: string, arch: string, version: string | null): Standing {
    if (channel !== 'stable-4.16') return { stranded: 'unknown-channel', recommended: [], conditional: [] };
    if (arch !== 'amd64') return { stranded: 'unknown-arch', recommended: [], conditional: [] };
    if (version === null) return { stranded: undefined, recommended: [], conditional: [] };
    return shown[version] ?? { stranded: 'version-not-in-channel', recommended: [], conditional: [] };
  },
};
const group = (channel: string, arch: string, version: string | null, clusters: number) => ({
  channel,
  arch,
  version,
  clusters,
  stale: 0,
});

describe('fleet alerts', () => {
  it('counts a risk once per cluster however many of its updates carry it, and each stranded reason apart', () => {
    const state = alertStateOf(index, [
      group('stable-4.16', 'amd64', '4.16.1', 5),
      group('stable-4.16', 'amd64', '4.16.2', 3),
      group('stable-4.16', 'amd64', '4.15.9', 2),
      group('stable-4.16', 'amd64', null, 4),
      group('stable-4.16', 's390x', '4.16.1', 1),
      group('fast-9.9', 'amd64', '9.9.0', 7),
    ]);
    expect(state).toEqual({
      exposed: { 'RiskA\tstable-4.16\tamd64': 5, 'RiskB\tstable-4.16\tamd64': 8 },
      stranded: {
        'fast-9.9\tamd64\tunknown-channel': 7,
        'stable-4.16\tamd64\tversion-not-in-channel': 2,
        'stable-4.16\ts390x\tunknown-arch': 1,
      },
    });
    // Equal fleets give equal text, whatever order the groups came in.
    const again = alertStateOf(index, [
      group('fast-9.9', 'amd64', '9.9.0', 7),
      group('stable-4.16', 's390x', '4.16.1', 1),
      group('stable-4.16', 'amd64', '4.15.9', 2),
      group('stable-4.16', 'amd64', '4.16.2', 3),
      group('stable-4.16', 'amd64', '4.16.1', 5),
    ]);
    expect(JSON.stringify(again)).toBe(JSON.stringify(state));
  });

  it('reports what grew, with the count before and after, and nothing for what stayed or shrank', () => {
    const at = '2026-11-29T00:00:00.000Z';
    const before = {
      exposed: { 'RiskA\tstable-4.16\tamd64': 5, 'RiskB\tstable-4.16\tamd64': 8 },
      stranded: { 'stable-4.16\tamd64\tversion-not-in-channel': 2 },
    };
    const after = {
      exposed: { 'RiskA\tstable-4.16\tamd64': 5, 'RiskB\tstable-4.16\tamd64': 6, 'RiskC\tfast-4.16\tarm64': 1 },
      stranded: {
        'stable-4.16\tamd64\tversion-not-in-channel': 3,
        'fast-9.9\tamd64\tunknown-channel': 7,
      },
    };
    expect(alertChanges(before, after, at)).toEqual([
      {
        kind: 'clusters-exposed',
        at,
        risk: 'RiskC',
        channel: 'fast-4.16',
        arch: 'arm64',
        detail: { clusters: 1, before: 0 },
      },
      {
        kind: 'clusters-stranded',
        at,
        channel: 'stable-4.16',
        arch: 'amd64',
        detail: { reason: 'version-not-in-channel', clusters: 3, before: 2 },
      },
      {
        kind: 'clusters-stranded',
        at,
        channel: 'fast-9.9',
        arch: 'amd64',
        detail: { reason: 'unknown-channel', clusters: 7, before: 0 },
      },
    ]);
    expect(alertChanges(after, after, at)).toEqual([]);
  });
});
