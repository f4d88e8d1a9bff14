// Time moved by hand: the in-process simulated cluster and the tests run on it, an hour of cluster
// time in seconds, with no real wait.
import type { Clock } from 'cincy/clock';

/**
 * A clock tests move by hand: `advance` moves it and wakes every sleeper whose time has come. It never
 * waits real time. `sleepers` and `nextWake` let a test driver move it exactly to the next wake-up.
 */
export class ManualClock implements Clock {
  private waiting: Array<{ at: number; wake: () => void }> = [];

  constructor(private t = Date.parse('2026-06-01T00:00:00Z')) {}

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const entry = {
        at: this.t + Math.max(0, ms),
        wake: (): void => {
          this.waiting = this.waiting.filter((w) => w !== entry);
          signal?.removeEventListener('abort', entry.wake);
          resolve();
        },
      };
      this.waiting.push(entry);
      signal?.addEventListener('abort', entry.wake, { once: true });
    });
  }

  /** How many sleeps are under way. */
  get sleepers(): number {
    return this.waiting.length;
  }

  /** When the earliest sleep ends, if any is under way. */
  get nextWake(): number | undefined {
    return this.waiting.length ? Math.min(...this.waiting.map((w) => w.at)) : undefined;
  }

  advance(ms: number): void {
    this.t += ms;
    for (const w of this.waiting.filter((x) => x.at <= this.t)) w.wake();
  }
}
