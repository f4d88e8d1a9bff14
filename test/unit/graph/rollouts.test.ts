// The rules of a phased rollout on plain values: where a cluster's turn falls (spread evenly, different
// per target, the same everywhere), when its edges are offered, the phases, which edges it governs, and
// when it halts itself.
import { describe, expect, it } from 'vitest';
import {
  declaredRollout,
  DEFAULT_HALT_AFTER,
  elapsedShare,
  governs,
  haltReached,
  offeredAt,
  offers,
  phaseOf,
  placeOf,
  type Rollout,
} from '../../../src/graph/rollouts.js';

const HOUR = 3600_000;
const rollout = (extra: Partial<Rollout> = {}): Rollout => ({
  ...declaredRollout({
    ...{ id: 'r-1', channel: 'stable-4.16', to: '4.16.3', from: null, start: 1_000 * HOUR },
    ...{ duration: 'PT10H', durationMs: 10 * HOUR, url: 'https://updates.example/api/v1/rollouts/r-1' },
    ...{ createdAt: 0, createdBy: 'alice' },
  }),
  ...extra,
});
const ids = Array.from({ length: 20_000 }, (_, i) => `cluster-${i}`);

describe('placeOf', () => {
  it('spreads clusters evenly over [0, 1): each tenth holds a tenth of them, within 1.5%', () => {
    const tenths = new Array<number>(10).fill(0);
    for (const id of ids) {
      const p = placeOf(id, '4.16.3');
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThan(1);
      tenths[Math.floor(p * 10)]! += 1;
    }
    for (const n of tenths) expect(Math.abs(n / ids.length - 0.1)).toBeLessThan(0.015);
  });

  it('is the same for the same id and target, and rotates the early turns between targets', () => {
    expect(placeOf('a', '4.16.3')).toBe(placeOf('a', '4.16.3'));
    const early = (to: string) => new Set(ids.filter((id) => placeOf(id, to) < 0.1));
    const a = early('4.16.3');
    const b = early('4.16.4');
    const both = [...a].filter((id) => b.has(id)).length;
    // Independent draws: about a tenth of the early ones of one target are early in the next.
    expect(both / a.size).toBeLessThan(0.2);
  });
});

describe('offeredAt and offers', () => {
  it('offers canaries at the start, others at start + place·duration, a request without id at the end', () => {
    const r = rollout({ canaries: ['canary'] });
    expect(offeredAt(r, 'canary')).toBe(r.start);
    expect(offeredAt(r, undefined)).toBe(r.start + r.durationMs);
    const id = 'cluster-7';
    expect(offeredAt(r, id)).toBe(r.start + Math.floor(placeOf(id, r.to) * r.durationMs));
    expect(offers(r, id, offeredAt(r, id) - 1)).toBe(false);
    expect(offers(r, id, offeredAt(r, id))).toBe(true);
    expect(offers(r, undefined, r.start + r.durationMs)).toBe(true);
  });

  it('offers at each moment the elapsed share of the clusters, and never takes back an offer', () => {
    const r = rollout();
    let before = new Set<string>();
    for (let share = 0; share <= 1; share += 0.125) {
      const now = r.start + share * r.durationMs;
      const offered = new Set(ids.filter((id) => offers(r, id, now)));
      expect(Math.abs(offered.size / ids.length - share)).toBeLessThan(0.015);
      for (const id of before) expect(offered.has(id)).toBe(true);
      before = offered;
    }
  });

  it('offers nothing to anyone once halted or cancelled, and everything at once with a zero window', () => {
    expect(offers(rollout({ state: 'halted' }), 'canary', 2_000 * HOUR)).toBe(false);
    expect(offers(rollout({ state: 'cancelled' }), undefined, 2_000 * HOUR)).toBe(false);
    const now = rollout({ durationMs: 0, duration: 'PT0S' });
    expect(offers(now, undefined, now.start)).toBe(true);
    expect(offers(now, 'x', now.start - 1)).toBe(false);
  });
});

describe('phaseOf and elapsedShare', () => {
  it('goes scheduled, rolling, watching for 3 hours after the window, then completed', () => {
    const r = rollout();
    expect(phaseOf(r, r.start - 1)).toBe('scheduled');
    expect(phaseOf(r, r.start)).toBe('rolling');
    expect(phaseOf(r, r.start + r.durationMs)).toBe('watching');
    expect(phaseOf(r, r.start + r.durationMs + 3 * HOUR)).toBe('completed');
    expect(phaseOf(rollout({ state: 'halted' }), r.start)).toBe('halted');
    expect(elapsedShare(r, r.start - 1)).toBe(0);
    expect(elapsedShare(r, r.start + r.durationMs / 4)).toBe(0.25);
    expect(elapsedShare(r, r.start + 2 * r.durationMs)).toBe(1);
    expect(elapsedShare(rollout({ durationMs: 0 }), r.start)).toBe(1);
  });
});

describe('governs', () => {
  it('governs the edges into its target from the sources its pattern finds (a search, as blocked edges)', () => {
    expect(governs({ to: '4.16.3', from: null }, '4.15.9', '4.16.3')).toBe(true);
    expect(governs({ to: '4.16.3', from: null }, '4.15.9', '4.16.4')).toBe(false);
    expect(governs({ to: '4.16.3', from: '^4[.]15[.]' }, '4.15.9', '4.16.3')).toBe(true);
    expect(governs({ to: '4.16.3', from: '^4[.]15[.]' }, '4.16.1', '4.16.3')).toBe(false);
    expect(governs({ to: '4.16.3', from: '15' }, '4.15.9', '4.16.3')).toBe(true);
  });
});

describe('haltReached', () => {
  const counts = (failing: number, silent: number, took: number) => ({
    took,
    completed: 0,
    progressing: 0,
    failing,
    silent,
  });
  it('halts at either bound: the number of failures, or their share of the clusters that took it', () => {
    expect(haltReached(counts(0, 0, 100), DEFAULT_HALT_AFTER)).toBe(false);
    expect(haltReached(counts(1, 0, 100), DEFAULT_HALT_AFTER)).toBe(false);
    expect(haltReached(counts(1, 1, 100), DEFAULT_HALT_AFTER)).toBe(true); // silent counts as failed
    expect(haltReached(counts(1, 0, 10), DEFAULT_HALT_AFTER)).toBe(true); // 10%
    expect(haltReached(counts(5, 0, 100), { failures: null, fraction: 0.1 })).toBe(false);
    expect(haltReached(counts(10, 0, 100), { failures: null, fraction: 0.1 })).toBe(true);
    expect(haltReached(counts(9, 0, 10), { failures: 10, fraction: null })).toBe(false);
  });
});
