// A wait that ends at a change notice or at its timer, whichever comes first, and leaves nothing behind: the
// notice's waiter is dropped when the timer (or the caller's signal) ends the wait first.
import type { Clock } from '../clock.js';

/**
 * What `notice` resolves with, or undefined after `ms` on `clock` (at least `minRealMs` of real time), or when
 * `signal` aborts.
 */
export async function untilNotice<T>(
  clock: Clock,
  ms: number,
  signal: AbortSignal,
  notice: ((wait: AbortSignal) => Promise<T | undefined>) | undefined,
  minRealMs?: number,
): Promise<T | undefined> {
  if (signal.aborted) return undefined;
  const wake = new AbortController();
  const stop = (): void => wake.abort();
  signal.addEventListener('abort', stop, { once: true });
  let noticed: T | undefined;
  notice?.(wake.signal).then((v) => {
    noticed = v;
    stop();
  }, stop);
  await clock.sleep(ms, wake.signal, minRealMs);
  signal.removeEventListener('abort', stop);
  stop();
  return noticed;
}
