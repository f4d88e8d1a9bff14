// What the fleet keeps of a report, and where each update stands: read from ClusterVersion histories
// shaped as the cluster-version-operator writes them (newest first, Partial until applied, a superseded
// target left Partial with its completionTime set).
import { describe, expect, it } from 'vitest';
import {
  FAILING_AFTER_MS,
  keptReport,
  OPERATORS_NAMED,
  seenAtOf,
  SILENT_AFTER_MS,
  updateStateOf,
} from '../../../../src/app/fleet/reportedState.js';
import type { FleetReportBody } from '../../../../src/schemas/fleetReports.js';

const ID = '0b6e3c8a-1d2f-4a5b-8c9d-0e1f2a3b4c5d';
const T = Date.parse('2026-06-01T10:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString();
const MIN = 60_000;

type History = NonNullable<NonNullable<FleetReportBody['clusterVersion']['status']>['history']>;

function report(
  history: History,
  conditions: Array<{ type: string; status: 'True' | 'False' | 'Unknown' } & Record<string, string>> = [],
  operators: FleetReportBody['clusterOperators'] = [],
): FleetReportBody {
  return {
    clusterID: ID,
    clusterVersion: {
      spec: { clusterID: ID, channel: ' stable-4.16 ' },
      status: { desired: { version: history[0]?.version }, history, conditions },
    },
    clusterOperators: operators,
  };
}

const completed = (version: string, start: number, end: number): History[number] => ({
  state: 'Completed',
  version,
  startedTime: iso(start),
  completionTime: iso(end),
});
const partial = (version: string, start: number, end: number | null = null): History[number] => ({
  state: 'Partial',
  version,
  startedTime: iso(start),
  completionTime: end === null ? null : iso(end),
});

describe('keptReport', () => {
  it('pairs each history entry with the one before it, and leaves the install out', () => {
    const { updates } = keptReport(
      report([
        completed('4.16.5', T + 60 * MIN, T + 150 * MIN),
        completed('4.15.9', T, T + 40 * MIN),
        completed('4.15.8', T - 100 * MIN, T - 60 * MIN),
      ]),
      T + 200 * MIN,
    );
    expect(updates).toEqual([
      {
        from: '4.15.9',
        to: '4.16.5',
        startedAt: T + 60 * MIN,
        completedAt: T + 150 * MIN,
        failingSince: null,
        failingReason: null,
      },
      {
        from: '4.15.8',
        to: '4.15.9',
        startedAt: T,
        completedAt: T + 40 * MIN,
        failingSince: null,
        failingReason: null,
      },
    ]);
  });

  it('marks only the newest Partial entry failing while Failing=True, and a superseded one as left', () => {
    const failingAt = T + 90 * MIN;
    const { updates, report: kept } = keptReport(
      report(
        [
          partial('4.16.6', T + 80 * MIN),
          partial('4.16.5', T + 10 * MIN, T + 80 * MIN),
          completed('4.15.9', T - MIN, T),
        ],
        [
          {
            type: 'Failing',
            status: 'True',
            reason: 'ClusterOperatorDegraded',
            message: ' Cluster operator console is degraded ',
            lastTransitionTime: iso(failingAt),
          },
          { type: 'Progressing', status: 'True' },
          { type: 'SomethingElse', status: 'True' },
        ],
      ),
      T + 100 * MIN,
    );
    expect(updates.map((u) => [u.to, u.failingSince, u.failingReason])).toEqual([
      ['4.16.6', failingAt, 'ClusterOperatorDegraded'],
      ['4.16.5', T + 80 * MIN, 'Superseded'],
    ]);
    expect(kept.conditions).toEqual([
      {
        type: 'Failing',
        status: 'True',
        reason: 'ClusterOperatorDegraded',
        message: 'Cluster operator console is degraded',
      },
      { type: 'Progressing', status: 'True' },
    ]);
    expect(kept.channel).toBe('stable-4.16');
  });

  it('keeps a bounded summary however large the report', () => {
    const operators = Array.from({ length: 300 }, (_, i) => ({
      metadata: { name: `op-${String(i).padStart(3, '0')}` },
      status: { conditions: [{ type: 'Degraded', status: 'True' as const, message: 'x'.repeat(30_000) }] },
    }));
    const history = Array.from({ length: 200 }, (_, i) =>
      completed(`4.${200 - i}.0`, T + (200 - i) * MIN, T + (200 - i) * MIN + 1),
    );
    const { report: kept, updates } = keptReport(
      report(
        history,
        [{ type: 'Failing', status: 'False', message: 'y'.repeat(32_000), reason: 'z'.repeat(1000) }],
        operators,
      ),
      T,
    );
    expect(updates).toHaveLength(20);
    expect(kept.operators.total).toBe(300);
    expect(kept.operators.degraded).toHaveLength(OPERATORS_NAMED);
    expect(kept.operators.unavailable).toHaveLength(OPERATORS_NAMED);
    expect(kept.conditions[0]!.message!.length).toBe(512);
    expect(kept.conditions[0]!.reason!.length).toBe(128);
    expect(JSON.stringify(kept).length).toBeLessThan(16_000);
  });

  it('makes no edge of a version that is no release, nor of a release to itself', () => {
    const { updates } = keptReport(
      report([
        completed('4.16.5', T, T + 1),
        completed('4.16.5', T - 2, T - 1),
        completed('not a version', T - 4, T - 3),
        completed('4.15.1', T - 6, T - 5),
      ]),
      T,
    );
    expect(updates).toEqual([]);
  });
});

describe('keptReport, on histories as the cluster-version-operator writes them', () => {
  const H = 3600_000;
  const edges = (history: History) =>
    keptReport(report(history), T).updates.map((u) => [u.from, u.to, u.completedAt !== null, u.failingReason]);

  it('takes a retarget from the version the cluster ran, not from the target it left', () => {
    // 4.14.1 → 4.14.2, retargeted half-way to 4.14.3, which completed.
    expect(
      edges([
        completed('4.14.3', T + 2 * H, T + 3 * H),
        partial('4.14.2', T, T + 2 * H),
        completed('4.14.1', T - 9 * H, T - 8 * H),
      ]),
    ).toEqual([
      ['4.14.1', '4.14.3', true, null],
      ['4.14.1', '4.14.2', false, 'Superseded'],
    ]);
  });

  it('makes one attempt of the same version asked for again by another image', () => {
    const { updates } = keptReport(
      report([
        completed('4.14.3', T + 2 * H, T + 3 * H),
        partial('4.14.3', T, T + 2 * H),
        completed('4.14.1', T - 9 * H, T - 8 * H),
      ]),
      T,
    );
    expect(updates).toEqual([
      { from: '4.14.1', to: '4.14.3', startedAt: T, completedAt: T + 3 * H, failingSince: null, failingReason: null },
    ]);
  });

  it('takes the same version again above a completed one as a re-apply, not an update', () => {
    const earlier = completed('4.16.2', T, T + H);
    const first = {
      from: '4.16.1',
      to: '4.16.2',
      startedAt: T,
      completedAt: T + H,
      failingSince: null,
      failingReason: null,
    };
    const base = [earlier, completed('4.16.1', T - 9 * H, T - 8 * H)];
    expect(keptReport(report([completed('4.16.2', T + 480 * H, T + 481 * H), ...base]), T).updates).toEqual([first]);
    expect(keptReport(report([partial('4.16.2', T + 480 * H), ...base]), T).updates).toEqual([first]);
  });

  it('leaves out entries without a version, with a time that does not read, or a start seen already, and downgrades', () => {
    expect(
      edges([
        completed('4.14.5', T + 5 * H, T + 6 * H),
        { state: 'Partial', version: '', startedTime: iso(T + 4 * H), completionTime: iso(T + 5 * H) },
        { state: 'Completed', version: '4.14.4', startedTime: '2016-12-31T23:59:60Z', completionTime: iso(T + 4 * H) },
        completed('4.14.9', T + 3 * H, T + 3 * H + 1),
        completed('4.14.2', T + 3 * H, T + 3 * H + 2), // the same start as the entry above it
        completed('4.14.1', T, T + 1),
      ]),
    ).toEqual([
      // 4.14.5 from 4.14.9 would be a downgrade; 4.14.9 from 4.14.1 (4.14.2 shared its start) is an update.
      ['4.14.1', '4.14.9', true, null],
    ]);
  });
});

describe('seenAtOf', () => {
  it('counts an update going on from when the service heard of it, one done from its own start', () => {
    const skewed = T + 50 * 3600_000; // a cluster clock two days ahead
    expect(seenAtOf({ startedAt: skewed, completedAt: null }, T)).toBe(T);
    expect(seenAtOf({ startedAt: T - 9 * 86400_000, completedAt: T - 8 * 86400_000 }, T)).toBe(T - 9 * 86400_000);
    expect(seenAtOf({ startedAt: skewed, completedAt: skewed + 1 }, T)).toBe(T);
  });
});

describe('updateStateOf', () => {
  const u = { seenAt: T, completedAt: null, failingSince: null, failingReason: null };
  it('completed, failing, silent, timed out, progressing, in that order', () => {
    expect(updateStateOf({ ...u, completedAt: T + 1, failingSince: T }, T, T + 10 * 3600_000)).toEqual({
      state: 'completed',
    });
    expect(updateStateOf({ ...u, failingSince: T + 5, failingReason: 'X' }, T - 99 * 3600_000, T + MIN)).toEqual({
      state: 'failing',
      reason: 'X',
    });
    const late = T + FAILING_AFTER_MS + MIN;
    expect(updateStateOf(u, late - SILENT_AFTER_MS - 1, late)).toEqual({ state: 'silent' });
    expect(updateStateOf(u, late, late)).toEqual({ state: 'failing', reason: 'Timeout' });
    expect(updateStateOf(u, T + MIN, T + 2 * MIN)).toEqual({ state: 'progressing' });
  });
});
