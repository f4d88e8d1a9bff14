// Time for the update simulation. A real update takes 60 to 120 minutes; the mock cluster declares a
// time scale so that tests and the demo run one in seconds. The mock keeps its clock in a ConfigMap,
// so the agent (acting as the CVO) follows the same clock, and a restart of either keeps it.

export interface Clock {
  /** Milliseconds since the epoch, in simulated time. */
  now(): number;
  /** Waits `ms` of simulated time; ends at once, timer cleared, when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Where the mock cluster declares its clock: data {scale, realEpoch, simEpoch} (numbers as strings). */
export const CLOCK_CONFIGMAP = { namespace: 'openshift-config', name: 'cincy-mock-clock' };

/** Simulated time runs `scale` times faster than real time from (realEpoch, simEpoch). */
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

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms / this.scale));
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** The ConfigMap data that declares this clock. */
  toData(): Record<string, string> {
    return { scale: String(this.scale), realEpoch: String(this.realEpoch), simEpoch: String(this.simEpoch) };
  }

  /** The clock a ConfigMap declares; real time when there is none or it is malformed. */
  static fromData(data: Record<string, string> | undefined): ScaledClock {
    const scale = Number(data?.scale);
    const realEpoch = Number(data?.realEpoch);
    const simEpoch = Number(data?.simEpoch);
    if (!(scale > 0) || !Number.isFinite(realEpoch) || !Number.isFinite(simEpoch)) return new ScaledClock(1);
    return new ScaledClock(scale, realEpoch, simEpoch);
  }

  /** The same simulated time from now on, at another scale (a restart with a new --time-scale). */
  rescaled(scale: number): ScaledClock {
    const realNow = Date.now();
    return new ScaledClock(scale, realNow, this.simEpoch + (realNow - this.realEpoch) * this.scale);
  }
}

/** A clock whose source can change: the agent follows the cluster's clock when it is rescaled. */
export class FollowedClock implements Clock {
  constructor(public source: Clock) {}

  now(): number {
    return this.source.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.source.sleep(ms, signal);
  }
}

/** A clock tests move by hand: sleep resolves when advance() passes its deadline. */
export class ManualClock implements Clock {
  private waiting: Array<{ at: number; resolve: () => void }> = [];

  constructor(private t = Date.parse('2026-06-01T00:00:00Z')) {}

  now(): number {
    return this.t;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push({ at: this.t + ms, resolve });
    });
  }

  advance(ms: number): void {
    this.t += ms;
    const due = this.waiting.filter((w) => w.at <= this.t);
    this.waiting = this.waiting.filter((w) => w.at > this.t);
    for (const w of due) w.resolve();
  }
}

/** Kubernetes times have whole seconds. */
export const kubeTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** Parses `90s`, `3m`, `1h30m`, `250ms` into milliseconds; undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const m = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(text.trim());
  if (!m || text.trim() === '') return undefined;
  const [, h, min, s, ms] = m;
  return (Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Number(s ?? 0)) * 1000 + Number(ms ?? 0);
}

const REAL_TIME = new ScaledClock(1);

/**
 * Waits `ms` of simulated time and at least `minRealMs` of real time (a fast clock must not turn a
 * polling loop into a busy one); resolves early when `signal` aborts.
 */
export async function pause(clock: Clock, ms: number, signal?: AbortSignal, minRealMs = 50): Promise<void> {
  await Promise.all([clock.sleep(ms, signal), REAL_TIME.sleep(minRealMs, signal)]);
}
