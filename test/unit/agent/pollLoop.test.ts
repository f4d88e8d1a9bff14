// The agent's poll loop on a clock moved by hand, with a poller and a watch standing in for the cluster:
// when polls come (a random time in [interval, 2 × interval)), and what makes one come at once (a change
// of channel, upstream, architecture or version, told by the watch or found by the 30-second check).
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../../src/agent/clusterVersion.js';
import type { PollResult } from '../../../src/agent/poll.js';
import { runPollLoop } from '../../../src/agent/pollLoop.js';
import { ManualClock } from '@cincy/simulator/clock/manual';

const INTERVAL = 120_000;
const cv = (channel: string): ClusterVersion => ({
  metadata: {},
  spec: { clusterID: '00000000-0000-0000-0000-000000000000', channel },
  status: { desired: { version: '4.16.3', image: 'quay.example/r@sha256:0' } },
});
const RESULT = {
  retrieved: { type: 'RetrievedUpdates', status: 'True', lastTransitionTime: '', reason: '', message: '' },
};

/** Lets every pending promise and I/O callback run. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
};

function rig(random = 0.5, queued: number[] = []) {
  const clock = new ManualClock();
  let current = cv('stable-4.16');
  const polls: number[] = [];
  let notify: ((cv: ClusterVersion | undefined) => void) | undefined;
  const poller = {
    clusterVersion: async () => current,
    poll: async () => {
      polls.push(clock.now());
      const queuedEvaluations = queued.shift() ?? 0;
      return {
        ...RESULT,
        available: 0,
        conditional: 0,
        recommendedConditional: 0,
        written: false,
        riskProblems: [],
        queuedEvaluations,
      } as PollResult;
    },
  };
  const watch = { next: () => new Promise<ClusterVersion | undefined>((resolve) => (notify = resolve)) };
  const stop = new AbortController();
  const log = pino({ level: 'silent' });
  const loop = runPollLoop(poller, {
    intervalMs: INTERVAL,
    log,
    signal: stop.signal,
    watch,
    clock,
    random: () => random,
  });
  const start = clock.now();
  return {
    clock,
    polls,
    since: () => polls.map((t) => t - start),
    set: (channel: string) => void (current = cv(channel)),
    notify: (next: ClusterVersion) => notify?.(next),
    stop: async () => {
      stop.abort();
      await loop;
    },
  };
}

/** Moves the clock in steps of at most `step`, letting the loop run after each. */
async function advance(clock: ManualClock, ms: number, step = 10_000): Promise<void> {
  for (let left = ms; left > 0; left -= step) {
    clock.advance(Math.min(step, left));
    await settle();
  }
}

describe('the poll loop', () => {
  it('polls at once, then after interval × (1 + random), checking every 30 s meanwhile', async () => {
    const r = rig(0.5);
    await settle();
    expect(r.since()).toEqual([0]);
    expect(r.clock.nextWake! - r.clock.now()).toBe(30_000); // the fallback check, not the whole wait
    await advance(r.clock, 1.5 * INTERVAL - 10_000);
    expect(r.since()).toEqual([0]);
    await advance(r.clock, 10_000);
    expect(r.since()).toEqual([0, 1.5 * INTERVAL]);
    await r.stop();
  });

  it('polls at once when the watch reports a change of the trigger fields, and not for other changes', async () => {
    const r = rig(0.9);
    await settle();
    await advance(r.clock, 20_000);
    r.notify(cv('stable-4.16')); // the object changed, but nothing the poll depends on
    await settle();
    expect(r.polls).toHaveLength(1);
    r.set('fast-4.16');
    r.notify(cv('fast-4.16'));
    await settle();
    expect(r.since()).toEqual([0, 20_000]);
    await r.stop();
  });

  it('keeps running when the watch brings a ClusterVersion made again without status', async () => {
    const r = rig(0.9);
    await settle();
    // As a create on a real API server leaves it: no status.
    r.notify({ ...cv('fast-4.16'), status: undefined } as unknown as ClusterVersion);
    await settle();
    expect(r.polls).toHaveLength(2); // the trigger changed: polled (the poll says why it cannot go on)
    await advance(r.clock, 1.9 * INTERVAL);
    expect(r.polls).toHaveLength(3); // still running, on its interval
    await r.stop();
  });

  it('finds a change by its 30-second check when the watch says nothing', async () => {
    const r = rig(0.9);
    await settle();
    r.set('fast-4.16');
    await advance(r.clock, 29_000, 29_000);
    expect(r.polls).toHaveLength(1);
    await advance(r.clock, 1_000);
    expect(r.since()).toEqual([0, 30_000]);
    await r.stop();
  });

  it('ends, timers cleared, when the signal aborts during a wait', async () => {
    const r = rig();
    await settle();
    expect(r.clock.sleepers).toBe(1);
    await r.stop();
    expect(r.clock.sleepers).toBe(0);
  });

  it('comes back a second later while risk evaluations are queued by the rate limit, then keeps its interval', async () => {
    const r = rig(0.5, [3, 2, 0]);
    await settle();
    await advance(r.clock, 2_000, 500);
    expect(r.since()).toEqual([0, 1_000, 2_000]);
    await advance(r.clock, 1.5 * INTERVAL, 10_000);
    expect(r.since()).toEqual([0, 1_000, 2_000, 2_000 + 1.5 * INTERVAL]);
    await r.stop();
  });
});
