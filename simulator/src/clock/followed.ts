// A clock whose source can change: the agent run with --follow-mock-clock follows the simulated clock a
// mock cluster declares, which is rescaled when the mock restarts at another speed.
import type { Clock } from 'cincy/clock';

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
