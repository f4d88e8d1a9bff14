// Work per subject per minute (src/app/rateLimit.ts): the limit, its window, requests of many units, and the
// windows of subjects gone quiet dropped, so a subject per cluster does not grow the map forever.
import { describe, expect, it } from 'vitest';
import { RateLimit } from '../../../src/app/rateLimit.js';

describe('RateLimit', () => {
  it('refuses past the limit within a minute, and takes again in the next', () => {
    let now = 0;
    const limit = new RateLimit(2, { now: () => now, sleep: async () => {} });
    expect(limit.count('a').refused).toBeUndefined();
    expect(limit.count('a').refused).toBeUndefined();
    expect(limit.count('a').refused?.retryAfterSeconds).toBe(60);
    expect(limit.count('b').refused).toBeUndefined();
    now = 60_000;
    expect(limit.count('a').refused).toBeUndefined();
  });

  it('counts a request of many units whole: one that does not fit is refused, and a smaller one still fits', () => {
    const limit = new RateLimit(100, { now: () => 0, sleep: async () => {} }, 'planned paths');
    expect(limit.count('client', 60)).toEqual({ limit: 100, remaining: 40 });
    const refused = limit.count('client', 50);
    expect(refused.refused?.error.message).toBe("more than 100 planned paths in a minute by 'client'");
    expect(limit.count('client', 40)).toEqual({ limit: 100, remaining: 0 });
    expect(limit.count('client', 1).refused).toBeDefined();
  });

  it('keeps no window of a subject quiet for a minute once there are many', () => {
    let now = 0;
    const limit = new RateLimit(5, { now: () => now, sleep: async () => {} });
    for (let i = 0; i < 20_000; i++) limit.count(`cluster ${i}`);
    now = 61_000;
    limit.count('one more');
    const size = (limit as unknown as { windows: Map<string, unknown> }).windows.size;
    expect(size).toBe(1);
  });
});
