// Work that must run one at a time, in the order asked: a SQLite connection's transactions, a
// PostgreSQL replica's writes (one waits for the database's write lock, the others wait here without
// holding a connection of the pool).
import { setTimeout as sleep } from 'node:timers/promises';

export class Turns {
  private tail: Promise<unknown> = Promise.resolve();

  /**
   * Runs `fn` once every turn asked before has ended. With `waitMs`, gives up when the turn has not
   * come by then, throwing what `tooLong` makes; `fn` then never runs.
   */
  async run<T>(fn: () => Promise<T>, waitMs?: number, tooLong?: () => Error): Promise<T> {
    let state: 'waiting' | 'running' | 'abandoned' = 'waiting';
    let begin!: () => void;
    const begun = new Promise<void>((resolve) => (begin = resolve));
    const turn = this.tail.then(() => {
      if (state === 'abandoned') return undefined;
      state = 'running';
      begin();
      return fn();
    });
    this.tail = turn.catch(() => {});
    if (waitMs !== undefined && state === 'waiting') {
      const stopTimer = new AbortController();
      const timedOut = sleep(waitMs, 'timeout' as const, { signal: stopTimer.signal }).catch(() => 'begun' as const);
      await Promise.race([begun, timedOut]);
      stopTimer.abort();
      // Decided here, in one step: a turn that began meanwhile is waited for, never abandoned while it runs.
      if (state === 'waiting') {
        state = 'abandoned';
        throw tooLong?.() ?? new Error(`waited ${waitMs} ms for a turn`);
      }
    }
    return turn as Promise<T>;
  }
}
