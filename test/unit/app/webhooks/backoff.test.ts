// The parts of webhooks that need no server: backoff (src/app/webhooks/backoff.ts), and when a delivery is
// given up. The other parts are beside it (signature, outbox, validation, destination, send).
import { describe, expect, it } from 'vitest';
import { BACKOFF, nextAttemptAt } from '../../../../src/app/webhooks/backoff.js';

describe('backoff', () => {
  const t0 = 1_000_000;
  it('doubles from 1 s to 10 min, shortened by at most a fifth', () => {
    expect(nextAttemptAt(1, t0, t0, () => 0)).toBe(t0 + 1000);
    expect(nextAttemptAt(2, t0, t0, () => 0)).toBe(t0 + 2000);
    expect(nextAttemptAt(5, t0, t0, () => 0)).toBe(t0 + 16_000);
    expect(nextAttemptAt(40, t0, t0, () => 0)).toBe(t0 + BACKOFF.lastMs);
    const jittered = nextAttemptAt(3, t0, t0, () => 0.999)! - t0;
    expect(jittered).toBeGreaterThan(4000 * 0.8);
    expect(jittered).toBeLessThanOrEqual(4000);
  });
  it('gives up once the delivery was queued 3 days ago', () => {
    expect(nextAttemptAt(9, t0, t0 + BACKOFF.giveUpAfterMs - 1)).toBeDefined();
    expect(nextAttemptAt(9, t0, t0 + BACKOFF.giveUpAfterMs)).toBeUndefined();
  });
});
