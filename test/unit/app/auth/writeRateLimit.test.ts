// Writes per subject per minute (src/app/auth/writeRateLimit.ts): the limit, its window, and the
// windows of subjects gone quiet dropped, so a subject per cluster does not grow the map forever.
import { describe, expect, it } from 'vitest';
import { WriteRateLimit } from '../../../../src/app/auth/writeRateLimit.js';

describe('WriteRateLimit', () => {
  it('refuses past the limit within a minute, and takes again in the next', () => {
    let now = 0;
    const limit = new WriteRateLimit(2, { now: () => now, sleep: async () => {} });
    expect(limit.count('a').refused).toBeUndefined();
    expect(limit.count('a').refused).toBeUndefined();
    expect(limit.count('a').refused?.retryAfterSeconds).toBe(60);
    expect(limit.count('b').refused).toBeUndefined();
    now = 60_000;
    expect(limit.count('a').refused).toBeUndefined();
  });

  it('keeps no window of a subject quiet for a minute once there are many', () => {
    let now = 0;
    const limit = new WriteRateLimit(5, { now: () => now, sleep: async () => {} });
    for (let i = 0; i < 20_000; i++) limit.count(`cluster ${i}`);
    now = 61_000;
    limit.count('one more');
    const size = (limit as unknown as { windows: Map<string, unknown> }).windows.size;
    expect(size).toBe(1);
  });
});
