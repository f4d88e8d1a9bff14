// The Rollouts tab's pure parts (src/ui/rolloutChart.ts, src/ui/urlState.ts): the counts kept while the
// page is open, the chart's layout (window, now, the share offered, the clusters' lines), the words for
// shares and times, and the tab kept in the URL. The tab itself is tested in the browser
// (test/e2e/web-page-rollouts.test.ts).
import { describe, expect, it } from 'vitest';
import type { RolloutAnswer, RolloutAnswerCounts } from '../../../src/ui/api.js';
import { CHART, CountsHistory, HISTORY_POINTS, percent, timeline, when } from '../../../src/ui/rolloutChart.js';
import { parseState, stateQuery } from '../../../src/ui/urlState.js';
import { DEFAULT_STATE } from '../../../src/ui/urlState.js';

const MIN = 60_000;
const T0 = Date.parse('2026-06-01T12:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString();
const counts = (took: number, completed: number, failing: number, at: number, silent = 0): RolloutAnswerCounts => ({
  took,
  completed,
  progressing: took - completed - failing - silent,
  failing,
  silent,
  countedAt: iso(at),
});

/** A two-hour rollout starting at T0, `share` of it elapsed. */
const rollout = (over: Partial<RolloutAnswer> = {}): RolloutAnswer => ({
  id: 'r-0001',
  channel: 'stable-4.16',
  to: '4.16.22',
  from: null,
  start: iso(T0),
  end: iso(T0 + 120 * MIN),
  duration: 'PT2H',
  canaries: 0,
  haltAfter: { failures: 2, fraction: 0.05 },
  state: 'active',
  phase: 'rolling',
  share: 0.25,
  reason: null,
  stateAt: null,
  haltCounts: null,
  counts: null,
  url: 'http://localhost:8080/api/v1/rollouts/r-0001',
  createdAt: iso(T0 - MIN),
  createdBy: 'admin',
  ...over,
});

const LEFT = CHART.left;
const RIGHT = CHART.width - CHART.right;
const BOTTOM = CHART.offeredTop + CHART.laneHeight;

describe('the counts kept while the page is open', () => {
  it('keeps one point per count, oldest first, and none for a rollout not counted yet', () => {
    const history = new CountsHistory();
    history.add({ id: 'a', counts: null });
    expect(history.of('a')).toEqual([]);
    history.add({ id: 'a', counts: counts(1, 0, 0, T0) });
    history.add({ id: 'a', counts: counts(1, 0, 0, T0) }); // read again, not counted again
    history.add({ id: 'a', counts: counts(2, 1, 1, T0 + 15_000) });
    history.add({ id: 'a', counts: counts(9, 9, 0, T0 + 5_000) }); // an older count (another replica's)
    history.add({ id: 'b', counts: counts(3, 3, 0, T0) });
    expect(history.of('a').map((p) => [p.at - T0, p.counts.took])).toEqual([
      [0, 1],
      [15_000, 2],
    ]);
    expect(history.of('b')).toHaveLength(1);
  });

  it('keeps the newest points only, a bounded number of them', () => {
    const history = new CountsHistory();
    for (let i = 0; i < HISTORY_POINTS + 10; i++) history.add({ id: 'a', counts: counts(i, 0, 0, T0 + i * 15_000) });
    const kept = history.of('a');
    expect(kept).toHaveLength(HISTORY_POINTS);
    expect(kept[0]!.counts.took).toBe(10);
    expect(kept.at(-1)!.counts.took).toBe(HISTORY_POINTS + 9);
  });
});

describe('the chart of a rollout', () => {
  it('spans the window and now, and draws the share offered from 0 at the start to the share now', () => {
    const t = timeline(rollout(), [], T0 + 30 * MIN);
    const [x0, x1] = t.window;
    // The window fills the axis but for a margin at each end.
    expect(x0).toBeGreaterThan(LEFT);
    expect(x1).toBeLessThan(RIGHT);
    expect((x0 - LEFT) / (RIGHT - LEFT)).toBeCloseTo(0.03 / 1.06, 2);
    expect(t.now).toBeCloseTo(x0 + (x1 - x0) * 0.25, 0);
    expect(t.offered).toEqual([
      [x0, BOTTOM],
      [t.now, BOTTOM - CHART.laneHeight * 0.25],
    ]);
    expect(t.held).toEqual([]);
    expect(t.updated).toEqual([]);
    expect(t.most).toBe(1);
  });

  it('levels the share at 100% after the window, and takes in a now after it', () => {
    const t = timeline(rollout({ phase: 'watching', share: 1 }), [], T0 + 180 * MIN);
    const [x0, x1] = t.window;
    expect(t.now).toBeGreaterThan(x1);
    expect(t.now).toBeLessThan(RIGHT);
    expect(t.offered).toEqual([
      [x0, BOTTOM],
      [x1, CHART.offeredTop],
      [t.now, CHART.offeredTop],
    ]);
  });

  it('holds a halted rollout’s share from the halt to now, and a cancelled one’s at nothing', () => {
    const halted = timeline(
      rollout({ phase: 'halted', state: 'halted', share: 0.5, stateAt: iso(T0 + 60 * MIN) }),
      [],
      T0 + 90 * MIN,
    );
    const middle = (halted.window[0] + halted.window[1]) / 2;
    const half = BOTTOM - CHART.laneHeight / 2;
    expect(halted.offered.at(-1)).toEqual([expect.closeTo(middle, 0), half]);
    expect(halted.held).toEqual([halted.offered.at(-1), [halted.now, half]]);

    const cancelled = timeline(rollout({ phase: 'cancelled', state: 'cancelled', share: 0 }), [], T0 + 90 * MIN);
    expect(cancelled.offered).toEqual([]);
    expect(cancelled.held).toEqual([
      [cancelled.window[0], BOTTOM],
      [cancelled.now, BOTTOM],
    ]);
  });

  it('offers nothing before a scheduled rollout starts, now before its window', () => {
    const t = timeline(rollout({ phase: 'scheduled', share: 0 }), [], T0 - 60 * MIN);
    expect(t.offered).toEqual([]);
    expect(t.held).toEqual([]);
    expect(t.now).toBeLessThan(t.window[0]);
  });

  it('draws the clusters updated and failing (silent ones too) on a scale up to the most that took it', () => {
    const points = [
      { at: T0 + 20 * MIN, counts: counts(2, 0, 0, T0 + 20 * MIN) },
      { at: T0 + 25 * MIN, counts: counts(4, 2, 1, T0 + 25 * MIN, 1) },
    ];
    const t = timeline(rollout(), points, T0 + 30 * MIN);
    const base = CHART.clustersTop + CHART.laneHeight;
    expect(t.most).toBe(4);
    expect(t.updated.map(([, y]) => y)).toEqual([base, base - CHART.laneHeight / 2]);
    expect(t.failing.map(([, y]) => y)).toEqual([base, base - CHART.laneHeight / 2]);
    expect(t.updated[0]![0]).toBeLessThan(t.updated[1]![0]);
    expect(t.updated[1]![0]).toBeLessThan(t.now);
  });

  it('gives a window of no length and now at its start a minute of axis', () => {
    const t = timeline(rollout({ end: iso(T0), duration: 'PT0S', share: 1, phase: 'watching' }), [], T0);
    expect(Number.isFinite(t.now)).toBe(true);
    expect(t.window[0]).toBe(t.window[1]);
    expect(t.offered[0]).toEqual([t.window[0], BOTTOM]);
    expect(t.offered[1]).toEqual([t.window[0], CHART.offeredTop]);
  });
});

describe('words', () => {
  it('writes a share as a whole percentage, never rounded up to all', () => {
    expect(percent(0)).toBe('0%');
    expect(percent(0.004)).toBe('<1%');
    expect(percent(0.256)).toBe('25%');
    expect(percent(0.999)).toBe('99%');
    expect(percent(1)).toBe('100%');
  });

  it('writes a time to the minute, in UTC', () => {
    expect(when('2026-06-01T12:34:56.789Z')).toBe('2026-06-01 12:34Z');
    expect(when(T0)).toBe('2026-06-01 12:00Z');
    expect(when('soon')).toBe('soon');
  });
});

describe('the Rollouts tab in the URL', () => {
  it('is read and written with the rest of the page state', () => {
    const state = parseState('?channel=stable-4.16&tab=rollouts&version=4.16.3');
    expect(state).toEqual({ ...DEFAULT_STATE, channel: 'stable-4.16', version: '4.16.3', tab: 'rollouts' });
    expect(parseState(stateQuery(state))).toEqual(state);
    expect(stateQuery({ ...DEFAULT_STATE, tab: 'rollouts' })).toBe('?tab=rollouts');
    // The other tabs as urlState.ts writes them; an unknown one is the default.
    expect(stateQuery({ ...DEFAULT_STATE, channel: 'fast-4.16', tab: 'changes' })).toBe(
      '?channel=fast-4.16&tab=changes',
    );
    expect(parseState('?tab=rollout').tab).toBe('version');
  });
});
