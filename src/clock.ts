// Time, injected. Everything that reads the time or waits takes a Clock: real time in production; the
// simulated cluster brings its own (a faster one for the demo, one moved by hand for tests, both in
// simulator/src/clock/).

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

/** Kubernetes times have whole seconds. */
export const kubeTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
