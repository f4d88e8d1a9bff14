// When a failed delivery is tried again: after a pause doubling from 1 s to 10 min, each shortened
// by up to a fifth at random so receivers coming back are not all called at once; and given up on
// once the first attempt is 3 days old.

export const BACKOFF = { firstMs: 1_000, lastMs: 10 * 60_000, giveUpAfterMs: 3 * 24 * 3600_000 };

/**
 * The time of the next attempt after `attempts` failed ones (1 after the first), or undefined when the
 * delivery, queued at `createdAt`, is given up on. `random` is in [0, 1).
 */
export function nextAttemptAt(
  attempts: number,
  createdAt: number,
  now: number,
  random: () => number = Math.random,
): number | undefined {
  if (now - createdAt >= BACKOFF.giveUpAfterMs) return undefined;
  const pause = Math.min(BACKOFF.firstMs * 2 ** Math.max(0, attempts - 1), BACKOFF.lastMs);
  return now + Math.round(pause * (1 - random() / 5));
}
