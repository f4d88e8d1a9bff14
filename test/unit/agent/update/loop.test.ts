// The update executor's loop (src/agent/update/loop.ts): between passes it waits for a change notice or its
// timer; a change seen while a pass ran (after the pass read what changed) brings the next pass at once.
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { Clock } from '../../../../src/clock.js';
import type { ClusterVersionOperator, SyncResult } from '../../../../src/agent/update/operator.js';
import { runUpdateLoop } from '../../../../src/agent/update/loop.js';

/** A clock whose sleeps end only by their signal: no pass ever comes from a timer. */
const stillClock: Clock = {
  now: () => 0,
  sleep: (_ms, signal) => new Promise((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true })),
};

function rig(duringPass: (pass: number) => void, fails = false) {
  let count = 0;
  let notify: (() => void) | undefined;
  const passes: number[] = [];
  const operator = {
    sync: async (): Promise<SyncResult> => {
      passes.push(passes.length + 1);
      duringPass(passes.length);
      if (fails) throw new Error('a lasting failure');
      return 'idle';
    },
    reportFailure: async () => {},
  } as unknown as ClusterVersionOperator;
  const stop = new AbortController();
  const changes = {
    count: () => count,
    next: (signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        notify = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
  };
  const loop = runUpdateLoop(() => operator, {
    clock: stillClock,
    log: pino({ level: 'silent' }),
    signal: stop.signal,
    changes,
  });
  return {
    passes,
    change: () => ((count += 1), notify?.()),
    bump: () => (count += 1),
    stop: () => (stop.abort(), loop),
  };
}

describe('runUpdateLoop', () => {
  it('a change during a pass brings the next pass at once, with no notice and no timer', async () => {
    const r: ReturnType<typeof rig> = rig((pass) => {
      if (pass === 1) r.bump(); // counted, but told to no waiter: none waits while the pass runs
    });
    await vi.waitFor(() => expect(r.passes).toEqual([1, 2]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.passes, 'idle after a pass that saw no change').toEqual([1, 2]);
    await r.stop();
  });

  it('an idle executor wakes at a change notice', async () => {
    const r = rig(() => {});
    await vi.waitFor(() => expect(r.passes).toEqual([1]));
    r.change();
    await vi.waitFor(() => expect(r.passes).toEqual([1, 2]));
    await r.stop();
  });

  it('a failed pass is tried again at its timer or a notice, never at once, whatever was counted meanwhile', async () => {
    const r: ReturnType<typeof rig> = rig(() => r.bump(), true);
    await vi.waitFor(() => expect(r.passes).toEqual([1]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.passes, 'no pass at once after a failure').toEqual([1]);
    r.change();
    await vi.waitFor(() => expect(r.passes).toEqual([1, 2]));
    await r.stop();
  });
});
