// Time, injected. Everything that reads the time or waits takes a Clock: real time in production, a
// faster simulated time for the mock cluster and the demo, and a clock moved by hand in tests.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Waits `ms` of this clock's time; ends at once, timer cleared, when `signal` aborts. A clock that runs
   * faster than real time still waits at least `minRealMs` of real time, so a polling loop on it cannot
   * turn into a busy one; a clock moved by hand ignores it.
   */
  sleep(ms: number, signal?: AbortSignal, minRealMs?: number): Promise<void>;
}

/** Time that runs `scale` times faster than real time from (realEpoch, simEpoch); scale 1 is real time. */
export class ScaledClock implements Clock {
  constructor(
    readonly scale = 1,
    readonly realEpoch = Date.now(),
    readonly simEpoch = realEpoch,
  ) {
    if (!Number.isFinite(scale) || scale <= 0) throw new Error(`time scale must be a positive number, not ${scale}`);
  }

  now(): number {
    return this.simEpoch + (Date.now() - this.realEpoch) * this.scale;
  }

  sleep(ms: number, signal?: AbortSignal, minRealMs = this.scale > 1 ? 50 : 0): Promise<void> {
    return realSleep(Math.max(ms / this.scale, minRealMs), signal);
  }

  /** The same time from now on, at another scale. */
  rescaled(scale: number): ScaledClock {
    const realNow = Date.now();
    return new ScaledClock(scale, realNow, this.now());
  }
}

/** Real time. */
export const systemClock: Clock = new ScaledClock(1);

function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A clock whose source can change: the agent follows a simulated cluster clock that is rescaled. */
export class FollowedClock implements Clock {
  constructor(public source: Clock) {}

  now(): number {
    return this.source.now();
  }

  sleep(ms: number, signal?: AbortSignal, minRealMs?: number): Promise<void> {
    return this.source.sleep(ms, signal, minRealMs);
  }
}

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

/** Kubernetes times have whole seconds. */
export const kubeTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
